package org.jrdma.conformance;

class RoceV2ExtendedQpTest extends ExtendedQpConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
