package org.jrdma.conformance;

class RoceV2SrqTest extends SrqConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
