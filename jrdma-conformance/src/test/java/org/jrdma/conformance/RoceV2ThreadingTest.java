package org.jrdma.conformance;

class RoceV2ThreadingTest extends ThreadingConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
