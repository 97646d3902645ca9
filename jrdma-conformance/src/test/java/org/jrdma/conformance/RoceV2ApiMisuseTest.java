package org.jrdma.conformance;

class RoceV2ApiMisuseTest extends ApiMisuseConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
