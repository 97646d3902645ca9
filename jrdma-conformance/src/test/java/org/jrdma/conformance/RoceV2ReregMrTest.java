package org.jrdma.conformance;

class RoceV2ReregMrTest extends ReregMrConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
