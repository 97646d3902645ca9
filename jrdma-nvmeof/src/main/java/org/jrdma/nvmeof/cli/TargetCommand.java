package org.jrdma.nvmeof.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jrdma.nvmeof.target.NvmeTarget;
import org.jrdma.nvmeof.target.NvmeTargetOptions;
import org.jrdma.verbs.VerbsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma nvme target}: runs an {@link NvmeTarget} (one NVM subsystem of RAM namespaces and the
 * discovery controller) at {@code -a ADDR -s PORT} until {@code -t} seconds have passed or the process
 * is interrupted, then prints what it counted. Exit status 0, 1 when it cannot listen.
 */
@Command(name = "target", mixinStandardHelpOptions = true,
        description = "Run an NVMe/RDMA target: one subsystem of RAM namespaces and the discovery controller.")
final class TargetCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-a", "--traddr"}, paramLabel = "ADDR", required = true, description = "address to listen on (a jrdma device's)")
    String traddr;

    @Option(names = {"-s", "--trsvcid"}, paramLabel = "PORT", defaultValue = "4420", description = "port (default 4420)")
    int port;

    @Option(names = {"-n", "--nqn"}, paramLabel = "NQN", defaultValue = "nqn.2026-01.org.jrdma:target",
            description = "subsystem NQN (default ${DEFAULT-VALUE})")
    String nqn;

    @Option(names = "--size", paramLabel = "MiB", split = ",", defaultValue = "64",
            description = "size of each namespace in MiB, comma separated (default 64: one namespace)")
    long[] sizes;

    @Option(names = "--block-size", paramLabel = "BYTES", defaultValue = "512", description = "logical block size: 512 or 4096")
    int blockSize;

    @Option(names = "--in-capsule", paramLabel = "BYTES", defaultValue = "4096",
            description = "in-capsule data of the I/O queues' commands, 0..16384 (default 4096)")
    int inCapsule;

    @Option(names = "--max-io-queues", paramLabel = "N", defaultValue = "8", description = "I/O queues per controller (default 8)")
    int ioQueues;

    @Option(names = {"-t", "--time"}, paramLabel = "SECONDS", defaultValue = "0", description = "stop after this long (0: until interrupted)")
    long seconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        NvmeTargetOptions o = new NvmeTargetOptions().address(new InetSocketAddress(InetAddress.getByName(traddr), port))
                .subsysNqn(nqn).blockSize(blockSize).inCapsuleDataSize(inCapsule).maxIoQueues(ioQueues);
        for (long mib : sizes) {
            o.namespace(mib << 20);
        }
        NvmeTarget t;
        try {
            t = NvmeTarget.start(o);
        } catch (VerbsException | IllegalArgumentException e) {
            err.println("target: " + e.getMessage());
            err.flush();
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(stop::countDown);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.printf("nvmet: %s at %s:%d (rdma), %d namespace(s) of %d-byte blocks, discovery at %s%n", nqn,
                    t.address().getAddress().getHostAddress(), t.address().getPort(), sizes.length, blockSize,
                    org.jrdma.nvmeof.NvmeConnectOptions.DISCOVERY_NQN);
            out.flush();
            if (seconds > 0) {
                stop.await(seconds, TimeUnit.SECONDS);
            } else {
                stop.await();
            }
        } finally {
            NvmeTarget.Counters c = t.counters();
            t.close();
            out.printf("nvmet: %d queues accepted, %d rejected, %d commands, %d error statuses, %d transport errors, "
                    + "%d keep alive expiries%n", c.queuesAccepted(), c.queuesRejected(), c.commands(), c.errorStatuses(),
                    c.transportErrors(), c.keepAliveExpiries());
            out.flush();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down
            }
        }
        return 0;
    }
}
