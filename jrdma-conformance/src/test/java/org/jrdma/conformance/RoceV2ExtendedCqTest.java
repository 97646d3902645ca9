package org.jrdma.conformance;

class RoceV2ExtendedCqTest extends ExtendedCqConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
