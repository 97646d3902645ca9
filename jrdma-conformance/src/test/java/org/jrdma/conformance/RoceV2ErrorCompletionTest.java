package org.jrdma.conformance;

class RoceV2ErrorCompletionTest extends ErrorCompletionConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
