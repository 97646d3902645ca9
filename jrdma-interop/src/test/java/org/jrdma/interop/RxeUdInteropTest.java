package org.jrdma.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * UD in the lab (issues 10 and 11): {@code ib_send_bw -c UD} and {@code ib_send_lat -c UD} between
 * jrdma and Linux perftest 4.5 on rxe0 in guest g1, jrdma as the client and as the server, over
 * IPv4 and IPv6, with 2-byte messages and messages of the whole 1024-byte path MTU (perftest's UD
 * limit). Each run: both sides exit 0 with a result row and no error line, and the capture passes
 * {@link Captures}, as {@link RxePerftestInteropTest}'s runs.
 */
@Order(6)
class RxeUdInteropTest {
    static final int ITERATIONS = 20;
    private static Lab lab;

    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (Family f : List.of(Family.IPV4, Family.IPV6)) {
            for (String tool : List.of("ib_send_bw", "ib_send_lat")) {
                for (int size : new int[] {2, 1024}) {
                    for (RxePerftestInteropTest.Jrdma j : RxePerftestInteropTest.Jrdma.values()) {
                        a.add(Arguments.of(f, tool, size, j));
                    }
                }
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{1} -c UD -s {2} -n " + ITERATIONS + " over {0}: {3}")
    @MethodSource("runs")
    @Timeout(value = 150)
    void udSendCompletesBetweenJrdmaAndRxe(Family family, String tool, int size, RxePerftestInteropTest.Jrdma jrdma)
            throws Exception {
        int port = Ports.next();
        List<String> args = new ArrayList<>(List.of("-c", "UD"));
        args.addAll(Tools.args(size, ITERATIONS, port));
        Tools.RxePair pair = Tools.withRxeOnG1(lab, family, tool, args, jrdma == RxePerftestInteropTest.Jrdma.CLIENT);
        String name = tool + "-c-UD-s" + size + "." + family.name().toLowerCase(java.util.Locale.ROOT) + "." + pair.roles();
        PerftestPair.Result r = PerftestPair.run(name, port, pair.server(), pair.client(), lab, "g1");
        PerftestPair.assertBothCompleted(r, pair.server(), pair.client(), size, ITERATIONS, true);
    }
}
