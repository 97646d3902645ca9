package org.jrdma.conformance;

class IwarpOrderingTest extends OrderingConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): a WRITE's completion means its FPDUs were handed to TCP, not placed at the responder (RFC 5040 has no WRITE acknowledgement), so the responder's memory is checked after a later READ or SEND, not at the WRITE's completion")
    void tenThousandMixedOperationsInOrderWithExactData() {
    }
}
