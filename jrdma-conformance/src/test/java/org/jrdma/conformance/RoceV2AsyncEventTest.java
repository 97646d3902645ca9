package org.jrdma.conformance;

class RoceV2AsyncEventTest extends AsyncEventConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
