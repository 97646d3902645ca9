package org.jrdma.conformance;

class IwarpThreadingTest extends ThreadingConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }
}
