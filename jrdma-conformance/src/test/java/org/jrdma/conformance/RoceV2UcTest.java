package org.jrdma.conformance;

class RoceV2UcTest extends UcConformance {
    @Override
    protected ProviderFixture fixture() {
        return RoceV2Fixture.INSTANCE;
    }
}
