package org.jrdma.conformance;

class IwarpQueryTest extends QueryConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw: iWARP ports have no P_Key table (siw_query_port and siw_query_device leave pkey_tbl_len and max_pkeys 0; the kernel's iw_query_port does not fill them either)")
    void deviceAttributesAreConsistent() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw: iWARP ports have no P_Key table (siw_query_port and siw_query_device leave pkey_tbl_len and max_pkeys 0; the kernel's iw_query_port does not fill them either)")
    void everyPortAnswersAndNoOtherDoes() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw: iWARP ports have no P_Key table (siw_query_port and siw_query_device leave pkey_tbl_len and max_pkeys 0; the kernel's iw_query_port does not fill them either)")
    void thePkeyTableAndItsIndex() {
    }
}
