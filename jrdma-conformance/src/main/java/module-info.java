/**
 * The verbs conformance suite: abstract JUnit 5 test classes written once against the public
 * {@code org.jrdma.verbs} API. A provider runs them by subclassing each with a
 * {@link org.jrdma.conformance.ProviderFixture}.
 */
module org.jrdma.conformance {
    requires transitive org.jrdma.verbs;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    exports org.jrdma.conformance;
    opens org.jrdma.conformance to org.junit.platform.commons;
}
