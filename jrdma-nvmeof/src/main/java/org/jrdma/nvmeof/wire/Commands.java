package org.jrdma.nvmeof.wire;

/**
 * The admin and I/O commands of the host, written into a cleared {@link Sqe} with PSDT = SGL (over
 * fabrics every command uses SGLs, NVMe-oF 1.1 §2.1); the data pointer (SGL1) is the caller's to set.
 * Fields: NVMe Base 2.0 §5.16 Get Log Page (Figure 197: CDW10 LID 7:0, NUMDL 31:16; CDW11 NUMDU; CDW12-13
 * LPO), §5.17 Identify (Figure 273: CDW10 CNS 7:0, CNTID 31:16), §5.27 Set Features (Figure 316: CDW10
 * FID 7:0; Number of Queues CDW11: NSQR 15:0, NCQR 31:16, both 0's based), §5.25 Keep Alive, §5.2
 * Asynchronous Event Request; NVM Command Set 1.0 §3.2.4 Read / §3.2.6 Write (CDW10-11 SLBA, CDW12 NLB
 * 15:0, 0's based), §3.2.2 Flush.
 */
public final class Commands {
    private Commands() {
    }

    private static Sqe base(Sqe sqe, int opcode, int commandId, int nsid) {
        return sqe.clear().opcode(opcode).flags(Sqe.FLAGS_SGL).commandId(commandId).nsid(nsid);
    }

    /** Identify of {@code cns} for namespace {@code nsid} (0 for CNS 01h). */
    public static Sqe identify(Sqe sqe, int commandId, int cns, int nsid) {
        return base(sqe, Opcodes.ADMIN_IDENTIFY, commandId, nsid).cdw(10, cns & 0xff);
    }

    /**
     * Get Log Page {@code lid} of {@code bytes} bytes (a multiple of 4, at least 4) from byte {@code offset}
     * (a multiple of 4) of the page, for namespace {@code nsid} (0: none).
     */
    public static Sqe getLogPage(Sqe sqe, int commandId, int lid, int nsid, int bytes, long offset) {
        if (bytes < 4 || (bytes & 3) != 0 || (offset & 3) != 0) {
            throw new IllegalArgumentException("log page length " + bytes + " / offset " + offset + ": multiples of 4 needed");
        }
        int numd = bytes / 4 - 1;
        return base(sqe, Opcodes.ADMIN_GET_LOG_PAGE, commandId, nsid).cdw(10, lid & 0xff | (numd & 0xffff) << 16)
                .cdw(11, numd >>> 16).cdw(12, (int) offset).cdw(13, (int) (offset >>> 32));
    }

    /** Set Features Number of Queues: {@code queues} I/O submission and completion queues (1..65535). */
    public static Sqe setNumQueues(Sqe sqe, int commandId, int queues) {
        int n = queues - 1;
        return base(sqe, Opcodes.ADMIN_SET_FEATURES, commandId, 0).cdw(10, Opcodes.FEAT_NUM_QUEUES)
                .cdw(11, (n & 0xffff) | n << 16);
    }

    /** Abort of command {@code cid} of submission queue {@code sqid} (NVMe Base 2.0 §5.1, Figure 140: CDW10 SQID 15:0, CID 31:16). */
    public static Sqe abort(Sqe sqe, int commandId, int sqid, int cid) {
        return base(sqe, Opcodes.ADMIN_ABORT, commandId, 0).cdw(10, (sqid & 0xffff) | cid << 16);
    }

    /** Asynchronous Event Request (NVMe Base 2.0 §5.2): no fields; the controller completes it when an event occurs. */
    public static Sqe asyncEventRequest(Sqe sqe, int commandId) {
        return base(sqe, Opcodes.ADMIN_ASYNC_EVENT, commandId, 0);
    }

    /** Keep Alive. */
    public static Sqe keepAlive(Sqe sqe, int commandId) {
        return base(sqe, Opcodes.ADMIN_KEEP_ALIVE, commandId, 0);
    }

    /** Read ({@code write} false) or Write of {@code blocks} logical blocks (1..65536) from {@code slba}. */
    public static Sqe readWrite(Sqe sqe, boolean write, int commandId, int nsid, long slba, int blocks) {
        if (blocks < 1 || blocks > 65536) {
            throw new IllegalArgumentException("block count " + blocks + " not in 1..65536");
        }
        return base(sqe, write ? Opcodes.IO_WRITE : Opcodes.IO_READ, commandId, nsid).cdw10and11(slba)
                .cdw(12, blocks - 1);
    }

    /** Flush of namespace {@code nsid}. */
    public static Sqe flush(Sqe sqe, int commandId, int nsid) {
        return base(sqe, Opcodes.IO_FLUSH, commandId, nsid);
    }

    /** Granted queues of a Set Features Number of Queues' DW0: min(NSQA, NCQA) + 1. */
    public static int grantedQueues(int dw0) {
        return Math.min(dw0 & 0xffff, dw0 >>> 16) + 1;
    }
}
