package org.jrdma.conformance;

class RoceV2QpStateTableTest extends QpStateTableConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
