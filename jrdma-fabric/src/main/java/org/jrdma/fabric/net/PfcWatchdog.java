package org.jrdma.fabric.net;

import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.sim.EventHandler;

/**
 * One switch's PFC watchdog ({@link Scenario.WatchdogSpec}: SONiC's and Juniper's defaults).
 * Every poll interval it checks each watched egress (port, queue 1–7): paused by the peer,
 * non-empty, and nothing sent on that priority since the previous poll counts as one stormed poll;
 * {@code ceil(detect / poll)} stormed polls in a row put the queue in storm mode (the peer's pauses
 * are ignored; with {@code drop} the queue is flushed and what arrives for it is dropped). A queue
 * in storm mode is restored when no pause frame has arrived for the restoration time. Events go to
 * {@code watchdog.txt}.
 */
final class PfcWatchdog implements EventHandler {
    private final Network net;
    private final Switch sw;
    private final Scenario.WatchdogSpec spec;
    private final int pollsToDetect;
    private final int[][] stormedPolls;
    private final boolean[][] storm;
    private final long[][] lastTx;
    private final boolean[] watched;

    PfcWatchdog(Network net, Switch sw, Scenario.WatchdogSpec spec) {
        this.net = net;
        this.sw = sw;
        this.spec = spec;
        this.pollsToDetect = (int) Math.max(1, (spec.detectPs() + spec.pollPs() - 1) / spec.pollPs());
        int n = sw.ports.length;
        stormedPolls = new int[n][SwitchMmu.QUEUES];
        storm = new boolean[n][SwitchMmu.QUEUES];
        lastTx = new long[n][SwitchMmu.QUEUES];
        watched = new boolean[n];
        for (int i = 0; i < n; i++) {
            watched[i] = !spec.hostPortsOnly() || sw.ports[i].peer.node instanceof Nic;
        }
    }

    void start() {
        net.sim.after(spec.pollPs(), this, 0, null);
    }

    /** True if arrivals for egress (port, q) are to be dropped (storm mode, drop action). */
    boolean dropping(int port, int q) {
        return spec.drop() && storm[port][q];
    }

    @Override
    public void onEvent(int kind, Object payload) {
        long now = net.sim.now();
        for (int i = 0; i < sw.ports.length; i++) {
            if (!watched[i]) {
                continue;
            }
            Port p = sw.ports[i];
            for (int q = 1; q < SwitchMmu.QUEUES; q++) {
                long tx = p.txBytesByPriority[q];
                if (!storm[i][q]) {
                    if (p.pauseInEffect(q) && sw.queued(i, q) && tx == lastTx[i][q]) {
                        if (++stormedPolls[i][q] >= pollsToDetect) {
                            storm[i][q] = true;
                            p.ignorePause[q] = true;
                            net.watchdogStorms++;
                            net.out.watchdog(now, sw.id(), i, q, 1);
                            if (spec.drop()) {
                                sw.flush(i, q);
                            }
                            p.kick();
                        }
                    } else {
                        stormedPolls[i][q] = 0;
                    }
                } else if (now - p.lastPauseRxPs[q] >= spec.restorePs()) {
                    storm[i][q] = false;
                    stormedPolls[i][q] = 0;
                    p.ignorePause[q] = false;
                    net.out.watchdog(now, sw.id(), i, q, 0);
                }
                lastTx[i][q] = p.txBytesByPriority[q];
            }
        }
        net.sim.after(spec.pollPs(), this, 0, null);
    }
}
