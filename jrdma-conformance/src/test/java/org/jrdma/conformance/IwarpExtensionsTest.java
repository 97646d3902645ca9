package org.jrdma.conformance;

class IwarpExtensionsTest extends ExtensionsConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }
}
