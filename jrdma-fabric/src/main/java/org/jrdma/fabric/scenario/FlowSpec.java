package org.jrdma.fabric.scenario;

/**
 * A flow: one RC QP that sends {@code sizeBytes} from {@code src} to {@code dst}.
 *
 * @param name      its name (for reports)
 * @param src       the sending host
 * @param dst       the receiving host
 * @param sizeBytes the bytes to send (&gt; 0)
 * @param startPs   when it starts, in ps (&ge; 0)
 * @param priority  its priority (802.1p PCP and switch queue), 1–7 (0 is the control queue)
 * @param stopPs    when the sender stops sending (abandons what is left), in ps; {@link Long#MAX_VALUE}: never
 * @param line      the scenario line that declared it
 */
public record FlowSpec(String name, String src, String dst, long sizeBytes, long startPs, int priority, long stopPs,
        int line) {
}
