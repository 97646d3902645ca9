package org.jrdma.ibverbs.bind;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SockAddr} against the C library: gcc builds {@code struct sockaddr_in}/{@code sockaddr_in6}
 * with {@code inet_pton} and {@code htons} and prints their bytes; {@link SockAddr#write} must give
 * the same bytes and {@link SockAddr#read} the address back. Skipped without gcc outside CI.
 */
class SockAddrTest {
    @TempDir
    Path dir;

    @Test
    void writesWhatCBuildsAndReadsItBack() throws Exception {
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")), "needs gcc");
        }
        String c = """
                #include <stdio.h>
                #include <string.h>
                #include <arpa/inet.h>
                #include <netinet/in.h>
                static void hex(const void *p, size_t n) {
                    for (size_t i = 0; i < n; i++) printf("%02x", ((const unsigned char *) p)[i]);
                    printf("\\n");
                }
                int main(void) {
                    struct sockaddr_in a; memset(&a, 0, sizeof a);
                    a.sin_family = AF_INET; a.sin_port = htons(7174); inet_pton(AF_INET, "10.77.0.12", &a.sin_addr);
                    struct sockaddr_in6 b; memset(&b, 0, sizeof b);
                    b.sin6_family = AF_INET6; b.sin6_port = htons(18515); inet_pton(AF_INET6, "fd77::12", &b.sin6_addr);
                    hex(&a, sizeof a); hex(&b, sizeof b);
                    return 0;
                }
                """;
        Path src = dir.resolve("sa.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("sa");
        IbvLayoutsTest.run(List.of("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString()));
        String[] lines = IbvLayoutsTest.run(List.of(exe.toString())).strip().split("\n");
        check(new InetSocketAddress(InetAddress.getByName("10.77.0.12"), 7174), lines[0]);
        check(new InetSocketAddress(InetAddress.getByName("fd77::12"), 18515), lines[1]);
    }

    private static void check(InetSocketAddress a, String cHex) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(SockAddr.STORAGE, 8);
            SockAddr.write(s, a);
            byte[] c = HexFormat.of().parseHex(cHex);
            assertEquals(cHex, HexFormat.of().formatHex(s.asSlice(0, c.length).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(a, SockAddr.read(s));
        }
    }
}
