/**
 * The jrdma verbs API: the InfiniBand Verbs programming model of libibverbs in Java form,
 * and the provider SPI that the software (RoCE v2, iWARP) and native providers implement.
 */
module org.jrdma.verbs {
    requires jdk.jfr;
    exports org.jrdma.verbs;
    exports org.jrdma.verbs.spi;
    exports org.jrdma.verbs.ext;
    // issue 15: Flight Recorder events (names for applications, emit calls for the providers)
    exports org.jrdma.verbs.jfr;
    uses org.jrdma.verbs.spi.Provider;
}
