package org.jrdma.conformance;

class RoceV2AtomicWriteFlushTest extends AtomicWriteFlushConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
