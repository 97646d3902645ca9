package org.jrdma.conformance;

class RoceV2MemoryWindowTest extends MemoryWindowConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
