package org.jrdma.conformance;

class RoceV2OperationsTest extends OperationsConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
