/**
 * The jrdma verbs API: the InfiniBand Verbs programming model of libibverbs in Java form,
 * and the provider SPI that the software (RoCE v2, iWARP) and native providers implement.
 */
module org.jrdma.verbs {
    exports org.jrdma.verbs;
    exports org.jrdma.verbs.spi;
    exports org.jrdma.verbs.ext;
    uses org.jrdma.verbs.spi.Provider;
}
