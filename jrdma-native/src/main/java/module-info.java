/**
 * The native provider: the kernel's RDMA devices (InfiniBand, RoCE and iWARP RNICs, and the kernel's
 * soft devices rxe and siw) through rdma-core's {@code libibverbs.so.1}, called through the FFM API
 * (no JNI, no C build). Two layers: {@code org.jrdma.ibverbs.bind} is the binding to the C library
 * (struct layouts of {@code verbs.h}, downcall handles, the ABI check at load), and
 * {@code org.jrdma.ibverbs} the provider objects behind the verbs API. Applications reach it through
 * {@code org.jrdma.verbs} alone (a device named as the kernel names it, e.g. {@code rxe0}).
 * On native devices the connection manager's transport is librdmacm ({@code librdmacm.so.1}, same
 * FFM binding), plugged in through {@code org.jrdma.cm.spi}.
 * Needs {@code --enable-native-access=org.jrdma.ibverbs} (or ALL-UNNAMED on the class path).
 */
module org.jrdma.ibverbs {
    requires org.jrdma.verbs;
    // the CM transport over librdmacm (org.jrdma.cm.spi)
    requires org.jrdma.cm;
    requires org.agrona;
    requires org.slf4j;
    exports org.jrdma.ibverbs;
    provides org.jrdma.verbs.spi.Provider with org.jrdma.ibverbs.IbvProvider;
    provides org.jrdma.cm.spi.CmTransportProvider with org.jrdma.ibverbs.RdmaCmTransportProvider;
}
