package org.jrdma.nvmeof.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jrdma.nvmeof.IoBuffer;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeException;
import org.jrdma.nvmeof.NvmeNamespace;
import org.jrdma.nvmeof.wire.DiscoveryLog;
import org.jrdma.nvmeof.wire.IdentifyController;
import org.jrdma.nvmeof.wire.IdentifyNamespace;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jrdma nvme}: the NVMe over Fabrics host on the command line, in nvme-cli's shape (nvme-cli
 * 2.x: {@code nvme discover}, {@code nvme id-ctrl}, {@code nvme id-ns}, {@code nvme read},
 * {@code nvme write}). Where nvme-cli names a block device ({@code /dev/nvme0n1}) this command connects
 * to the controller itself for the one command, with {@code nvme connect}'s options ({@code -t rdma
 * -a ADDR -s PORT -n NQN -q HOSTNQN -I HOSTID -w HOST_TRADDR -i N -Q N -k S}), and disconnects after.
 * The jrdma device is the one whose address the route to {@code -a} leaves from ({@code JRDMA_DEVICES}).
 * Exit status 0, or 1 with nvme-cli's style of message on standard error.
 */
@Command(name = "nvme", mixinStandardHelpOptions = true,
        description = "NVMe over Fabrics (RDMA) host: discover, id-ctrl, id-ns, read, write (nvme-cli's shape), bench; "
                + "and a target (RAM namespaces).",
        subcommands = {NvmeCommand.Discover.class, NvmeCommand.IdCtrl.class, NvmeCommand.IdNs.class,
            NvmeCommand.Read.class, NvmeCommand.Write.class, NvmeCommand.BenchCommand.class, TargetCommand.class})
public final class NvmeCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The command (picocli instantiates it). */
    public NvmeCommand() {
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: discover, id-ctrl, id-ns, read, write, bench, target");
    }

    /** The {@code nvme} command line, for a launcher to add as a subcommand. */
    public static CommandLine commandLine() {
        return new CommandLine(new NvmeCommand());
    }

    /** {@code nvme connect}'s transport options. */
    static final class Fabric {
        @Option(names = {"-t", "--transport"}, paramLabel = "TRTYPE", defaultValue = "rdma", description = "transport type: rdma")
        String transport;

        @Option(names = {"-a", "--traddr"}, paramLabel = "ADDR", required = true, description = "transport address of the target")
        String traddr;

        @Option(names = {"-s", "--trsvcid"}, paramLabel = "PORT", defaultValue = "4420", description = "transport service ID (port; default 4420)")
        int trsvcid;

        @Option(names = {"-w", "--host-traddr"}, paramLabel = "ADDR", description = "local address to connect from (a jrdma device's)")
        String hostTraddr;

        @Option(names = {"-q", "--hostnqn"}, paramLabel = "NQN", description = "host NQN (default nqn.2014-08.org.nvmexpress:uuid:HOSTID)")
        String hostnqn;

        @Option(names = {"-I", "--hostid"}, paramLabel = "UUID", description = "host identifier (default random)")
        String hostid;

        @Option(names = {"-i", "--nr-io-queues"}, paramLabel = "N", defaultValue = "2", description = "I/O queues (default 2)")
        int ioQueues;

        @Option(names = {"-Q", "--queue-size"}, paramLabel = "N", defaultValue = "128", description = "I/O queue entries (default 128)")
        int queueSize;

        @Option(names = {"-k", "--keep-alive-tmo"}, paramLabel = "S", defaultValue = "5", description = "keep alive timeout, seconds (default 5)")
        int kato;

        NvmeConnectOptions options(String nqn) throws IOException {
            if (!"rdma".equals(transport)) {
                throw new CommandLine.ParameterException(new CommandLine(this), "transport '" + transport + "' not supported: rdma only");
            }
            NvmeConnectOptions o = new NvmeConnectOptions().target(new InetSocketAddress(InetAddress.getByName(traddr), trsvcid))
                    .subsysNqn(nqn).ioQueues(ioQueues).queueSize(queueSize).keepAliveTimeoutMs(kato * 1000).hostNqn(hostnqn);
            if (hostTraddr != null) {
                o.source(new InetSocketAddress(InetAddress.getByName(hostTraddr), 0));
            }
            if (hostid != null) {
                o.hostId(UUID.fromString(hostid));
            }
            return o;
        }
    }

    /** A subsystem to connect to: {@code -n NQN} and the namespace. */
    static final class Subsystem {
        @Option(names = {"-n", "--nqn"}, paramLabel = "NQN", required = true, description = "subsystem NQN")
        String nqn;

        @Option(names = {"--namespace-id"}, paramLabel = "NSID", defaultValue = "1", description = "namespace (default 1)")
        int nsid;
    }

    abstract static class Base implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        Fabric fabric;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }

        abstract int run(NvmeConnectOptions o) throws IOException;

        abstract String nqn();

        @Override
        public Integer call() throws IOException {
            try {
                return run(fabric.options(nqn()));
            } catch (NvmeException | IllegalArgumentException e) {
                err().println(spec.name() + ": " + e.getMessage());
                err().flush();
                return 1;
            } finally {
                out().flush();
            }
        }
    }

    @Command(name = "discover", mixinStandardHelpOptions = true,
            description = "Connect to the discovery controller and print the discovery log, as nvme discover does.")
    static final class Discover extends Base {
        @Override
        String nqn() {
            return NvmeConnectOptions.DISCOVERY_NQN;
        }

        @Override
        int run(NvmeConnectOptions o) {
            try (NvmeController c = NvmeController.connect(o)) {
                print(out(), c.discoveryLog());
            }
            return 0;
        }
    }

    /** The discovery log as nvme-cli 2.x's {@code print_discovery_log} prints it (normal output). */
    static void print(PrintWriter o, DiscoveryLog log) {
        o.printf("%nDiscovery Log Number of Records %d, Generation counter %d%n", log.numrec(), log.genctr());
        int i = 0;
        for (DiscoveryLog.Entry e : log.entries()) {
            o.printf("=====Discovery Log Entry %d======%n", i++);
            o.printf("trtype:  %s%n", Names.trtype(e.trtype()));
            o.printf("adrfam:  %s%n", Names.adrfam(e.adrfam()));
            o.printf("subtype: %s%n", Names.subtype(e.subtype()));
            o.printf("treq:    %s%n", Names.treq(e.treq()));
            o.printf("portid:  %d%n", e.portid());
            o.printf("trsvcid: %s%n", e.trsvcid());
            o.printf("subnqn:  %s%n", e.subnqn());
            o.printf("traddr:  %s%n", e.traddr());
            o.printf("eflags:  %s%n", Names.eflags(e.eflags()));
            if (e.trtype() == 1) {
                o.printf("rdma_prtype: %s%n", Names.prtype(e.rdmaPrtype()));
                o.printf("rdma_qptype: %s%n", Names.qptype(e.rdmaQptype()));
                o.printf("rdma_cms:    %s%n", Names.cms(e.rdmaCms()));
                o.printf("rdma_pkey: 0x%04x%n", e.rdmaPkey());
            }
        }
    }

    @Command(name = "id-ctrl", mixinStandardHelpOptions = true,
            description = "Print the Identify Controller data, as nvme id-ctrl does (its first fields and the fabrics ones).")
    static final class IdCtrl extends Base {
        @Mixin
        Subsystem sub;

        @Override
        String nqn() {
            return sub.nqn;
        }

        @Override
        int run(NvmeConnectOptions o) {
            try (NvmeController c = NvmeController.connect(o)) {
                IdentifyController id = c.identify();
                PrintWriter p = out();
                p.println("NVME Identify Controller:");
                p.printf("vid       : %#x%n", id.vid());
                p.printf("ssvid     : %#x%n", id.ssvid());
                p.printf("sn        : %-20s%n", id.sn());
                p.printf("mn        : %-40s%n", id.mn());
                p.printf("fr        : %-8s%n", id.fr());
                p.printf("rab       : %d%n", id.rab());
                p.printf("ieee      : %06x%n", id.ieee());
                p.printf("cmic      : %#x%n", id.cmic());
                p.printf("mdts      : %d%n", id.mdts());
                p.printf("cntlid    : %#x%n", id.cntlid());
                p.printf("ver       : %#x%n", id.ver());
                p.printf("ctratt    : %#x%n", id.ctratt());
                p.printf("oacs      : %#x%n", id.oacs());
                p.printf("kas       : %d%n", id.kas());
                p.printf("sqes      : %#x%n", id.sqes());
                p.printf("cqes      : %#x%n", id.cqes());
                p.printf("maxcmd    : %d%n", id.maxcmd());
                p.printf("nn        : %d%n", id.nn());
                p.printf("oncs      : %#x%n", id.oncs());
                p.printf("vwc       : %#x%n", id.vwc());
                p.printf("sgls      : %#x%n", id.sgls());
                p.printf("subnqn    : %s%n", id.subnqn());
                p.printf("ioccsz    : %d%n", id.ioccsz());
                p.printf("iorcsz    : %d%n", id.iorcsz());
                p.printf("icdoff    : %d%n", id.icdoff());
                p.printf("fcatt     : %#x%n", id.fcatt());
                p.printf("msdbd     : %d%n", id.msdbd());
            }
            return 0;
        }
    }

    @Command(name = "id-ns", mixinStandardHelpOptions = true,
            description = "Print the Identify Namespace data, as nvme id-ns does (its size fields and LBA formats).")
    static final class IdNs extends Base {
        @Mixin
        Subsystem sub;

        @Override
        String nqn() {
            return sub.nqn;
        }

        @Override
        int run(NvmeConnectOptions o) {
            try (NvmeController c = NvmeController.connect(o.ioQueues(1))) {
                IdentifyNamespace id = c.namespace(sub.nsid).identify();
                PrintWriter p = out();
                p.printf("NVME Identify Namespace %d:%n", sub.nsid);
                p.printf("nsze    : %#x%n", id.nsze());
                p.printf("ncap    : %#x%n", id.ncap());
                p.printf("nuse    : %#x%n", id.nuse());
                p.printf("nsfeat  : %#x%n", id.nsfeat());
                p.printf("nlbaf   : %d%n", id.nlbaf());
                p.printf("flbas   : %#x%n", id.flbas());
                p.printf("nmic    : %#x%n", id.nmic());
                StringBuilder g = new StringBuilder();
                for (byte b : id.nguid()) {
                    g.append(String.format("%02x", b));
                }
                p.printf("nguid   : %s%n", g);
                p.printf("eui64   : %016x%n", id.eui64());
                for (int i = 0; i < id.lbaf().length; i++) {
                    int f = id.lbaf()[i];
                    p.printf("lbaf %2d : ms:%-3d lbads:%-2d rp:%#x %s%n", i, f & 0xffff, f >>> 16 & 0xff, f >>> 24 & 3,
                            i == id.formatIndex() ? "(in use)" : "");
                }
            }
            return 0;
        }
    }

    /** {@code nvme read|write}'s I/O options. */
    abstract static class Io extends Base {
        @Mixin
        Subsystem sub;

        // nvme-cli's -s (start block) and -n (namespace) are nvme connect's -s (port) and -n (NQN) here
        @Option(names = {"--start-block"}, paramLabel = "SLBA", defaultValue = "0", description = "64-bit LBA of the first block")
        long startBlock;

        @Option(names = {"-c", "--block-count"}, paramLabel = "NLB", defaultValue = "0", description = "number of blocks, 0's based (as nvme-cli)")
        int blockCount;

        @Option(names = {"-z", "--data-size"}, paramLabel = "BYTES", required = true, description = "size of the data")
        long dataSize;

        @Option(names = {"-d", "--data"}, paramLabel = "FILE", description = "data file (read: written, write: read; default stdout/stdin)")
        Path data;

        @Override
        String nqn() {
            return sub.nqn;
        }

        abstract boolean write();

        @Override
        int run(NvmeConnectOptions o) throws IOException {
            try (NvmeController c = NvmeController.connect(o)) {
                NvmeNamespace ns = c.namespace(sub.nsid);
                int blocks = blockCount + 1;
                long size = (long) blocks * ns.blockSize();
                if (dataSize < size) {
                    err().printf("Rounding data size to fit block count (%d bytes)%n", size);
                }
                try (IoBuffer buf = c.allocBuffer(Math.max(size, dataSize))) {
                    MemorySegment m = buf.segment();
                    if (write()) {
                        byte[] in = data != null ? Files.readAllBytes(data) : System.in.readNBytes((int) dataSize);
                        MemorySegment.copy(in, 0, m, ValueLayout.JAVA_BYTE, 0, (int) Math.min(in.length, m.byteSize()));
                        ns.writeSync(startBlock, blocks, buf, 0);
                    } else {
                        ns.readSync(startBlock, blocks, buf, 0);
                        byte[] b = m.asSlice(0, Math.max(size, dataSize)).toArray(ValueLayout.JAVA_BYTE);
                        if (data != null) {
                            Files.write(data, java.util.Arrays.copyOf(b, (int) Math.max(dataSize, size)));
                        } else {
                            OutputStream so = System.out;
                            so.write(b);
                            so.flush();
                        }
                    }
                }
            }
            err().println((write() ? "write" : "read") + ": Success");
            return 0;
        }
    }

    @Command(name = "read", mixinStandardHelpOptions = true, description = "Read blocks into FILE, as nvme read does.")
    static final class Read extends Io {
        @Override
        boolean write() {
            return false;
        }
    }

    @Command(name = "write", mixinStandardHelpOptions = true, description = "Write blocks from FILE, as nvme write does.")
    static final class Write extends Io {
        @Override
        boolean write() {
            return true;
        }
    }

    @Command(name = "bench", mixinStandardHelpOptions = true,
            description = "Block I/O on all I/O queues: IOPS, MiB/s and latency percentiles (fio-like). "
                    + "--rw verify writes a per-block pattern at distinct offsets, reads it back and compares.")
    static final class BenchCommand extends Base {
        @Mixin
        Subsystem sub;

        @Option(names = "--rw", paramLabel = "MODE", defaultValue = "randread",
                description = "read, write, randread, randwrite, verify (random writes then reads, compared), seqverify")
        String rw;

        @Option(names = "--bs", paramLabel = "BYTES", defaultValue = "4096", description = "I/O size (a multiple of the block size)")
        int bs;

        @Option(names = "--iodepth", paramLabel = "N", defaultValue = "16", description = "I/Os outstanding")
        int iodepth;

        @Option(names = "--ios", paramLabel = "N", defaultValue = "1000", description = "I/Os per pass")
        int ios;

        @Option(names = "--seed", paramLabel = "N", defaultValue = "17", description = "seed of the offsets and the pattern")
        long seed;

        @Override
        String nqn() {
            return sub.nqn;
        }

        @Override
        int run(NvmeConnectOptions o) throws IOException {
            try (NvmeController c = NvmeController.connect(o)) {
                NvmeNamespace ns = c.namespace(sub.nsid);
                if (bs <= 0 || bs % ns.blockSize() != 0) {
                    throw new IllegalArgumentException("--bs " + bs + " is not a multiple of the block size " + ns.blockSize());
                }
                boolean random = rw.startsWith("rand") || rw.equals("verify");
                long[] lba = Bench.offsets(ns.blockCount(), ns.blockSize(), bs, ios, random, seed);
                List<Bench.Result> passes = new java.util.ArrayList<>();
                switch (rw) {
                    case "read", "randread" -> passes.add(Bench.run(c, ns, false, lba, bs, iodepth, false, seed));
                    case "write", "randwrite" -> passes.add(Bench.run(c, ns, true, lba, bs, iodepth, false, seed));
                    case "verify", "seqverify" -> {
                        passes.add(Bench.run(c, ns, true, lba, bs, iodepth, true, seed));
                        ns.flushSync();
                        passes.add(Bench.run(c, ns, false, lba, bs, iodepth, true, seed));
                    }
                    default -> throw new IllegalArgumentException("--rw " + rw + ": read, write, randread, randwrite, verify, seqverify");
                }
                for (Bench.Result r : passes) {
                    Bench.print(out(), r, bs, iodepth, c.ioQueueCount());
                }
                if (rw.endsWith("verify")) {
                    long bad = passes.get(1).mismatches();
                    out().printf("verify: %d I/Os of %d bytes written, flushed and read back: %d mismatches%n", ios, bs, bad);
                    return bad == 0 ? 0 : 1;
                }
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new NvmeException("bench: " + e, e);
            }
            return 0;
        }
    }
}
