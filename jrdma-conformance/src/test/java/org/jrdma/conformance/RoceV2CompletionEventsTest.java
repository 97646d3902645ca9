package org.jrdma.conformance;

class RoceV2CompletionEventsTest extends CompletionEventsConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
