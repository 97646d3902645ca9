package org.jrdma.conformance;

class RoceV2ExtensionsTest extends ExtensionsConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
