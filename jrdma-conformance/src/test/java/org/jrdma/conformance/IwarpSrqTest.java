package org.jrdma.conformance;

class IwarpSrqTest extends SrqConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }
}
