/**
 * JMH microbenchmarks. Build and run (with {@code -am} the class path names the modules' target/classes,
 * not whatever jars sit in the local repository):
 *
 * <pre>
 * mvn -q -o -pl bench -am compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=runtime
 * java -cp bench/target/classes:$(cat bench/target/cp.txt) org.jrdma.bench.BenchMain -f 1 -wi 1 -i 2 -w 1s -r 1s
 * </pre>
 *
 * {@link org.jrdma.bench.IcrcBench}: ICRC (IPv4, IPv6) over 64 B, 1 KiB, 4 KiB next to a bare CRC32 over
 * the same bytes, and IPv4 ID recovery. {@link org.jrdma.bench.HeaderBench}: BTH + RETH encode and decode.
 */
package org.jrdma.bench;
