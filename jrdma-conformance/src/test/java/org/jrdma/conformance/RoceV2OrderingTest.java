package org.jrdma.conformance;

class RoceV2OrderingTest extends OrderingConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
