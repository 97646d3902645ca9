package org.jrdma.conformance;

class IwarpApiMisuseTest extends ApiMisuseConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }
}
