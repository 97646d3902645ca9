package org.jrdma.nvmeof.wire;

/**
 * The Fabrics commands of the host (NVMe-oF 1.1 §3.3 Connect, Figure 20; §3.4 Property Get, Figure 25;
 * §3.5 Property Set, Figure 28; Linux {@code struct nvmf_connect_command},
 * {@code nvmf_property_get_command}, {@code nvmf_property_set_command}), written into an {@link Sqe}:
 * opcode 0x7f, FCTYPE at byte 4, the command's fields from byte 40 (CDW10 on).
 *
 * <pre>
 * Connect:      40 RECFMT u16, 42 QID u16, 44 SQSIZE u16 (0's based), 46 CATTR u8, 48 KATO u32 (ms)
 *               data: {@link ConnectData}, 1024 bytes
 * Property Get: 40 ATTRIB u8 (bit 0: 0 four bytes, 1 eight bytes), 44 OFST u32
 * Property Set: 40 ATTRIB u8, 44 OFST u32, 48 VALUE u64
 * </pre>
 *
 * <p>A Connect response's DW0 holds the controller ID in bits 15:0 (CNTLID); a Property Get's
 * response DW0 and DW1 the value.
 */
public final class Fabrics {
    /** ATTRIB: the property is 4 bytes. */
    public static final int SIZE_4 = 0;
    /** ATTRIB: the property is 8 bytes. */
    public static final int SIZE_8 = 1;

    private Fabrics() {
    }

    /**
     * Fills {@code sqe} (cleared here) as a Connect of queue {@code qid}.
     *
     * @param sqsize the queue's entries - 1
     * @param kato keep alive timeout, ms (admin queue; 0 disables it), I/O queues 0
     */
    public static Sqe connect(Sqe sqe, int commandId, int qid, int sqsize, int kato) {
        sqe.clear().opcode(Opcodes.FABRICS).flags(Sqe.FLAGS_SGL).commandId(commandId);
        Le.u8(sqe.segment(), sqe.offset() + 4, Opcodes.FCTYPE_CONNECT);
        Le.u16(sqe.segment(), sqe.offset() + 40, 0);
        Le.u16(sqe.segment(), sqe.offset() + 42, qid);
        Le.u16(sqe.segment(), sqe.offset() + 44, sqsize);
        Le.u8(sqe.segment(), sqe.offset() + 46, 0);
        Le.u32(sqe.segment(), sqe.offset() + 48, kato);
        return sqe;
    }

    /** Fills {@code sqe} as a Property Get of the property at {@code offset} ({@link Properties}), 4 or 8 bytes. */
    public static Sqe propertyGet(Sqe sqe, int commandId, int offset, boolean eightBytes) {
        sqe.clear().opcode(Opcodes.FABRICS).flags(Sqe.FLAGS_SGL).commandId(commandId);
        Le.u8(sqe.segment(), sqe.offset() + 4, Opcodes.FCTYPE_PROPERTY_GET);
        Le.u8(sqe.segment(), sqe.offset() + 40, eightBytes ? SIZE_8 : SIZE_4);
        Le.u32(sqe.segment(), sqe.offset() + 44, offset);
        return sqe;
    }

    /** Fills {@code sqe} as a Property Set of a 4-byte property. */
    public static Sqe propertySet(Sqe sqe, int commandId, int offset, int value) {
        sqe.clear().opcode(Opcodes.FABRICS).flags(Sqe.FLAGS_SGL).commandId(commandId);
        Le.u8(sqe.segment(), sqe.offset() + 4, Opcodes.FCTYPE_PROPERTY_SET);
        Le.u8(sqe.segment(), sqe.offset() + 40, SIZE_4);
        Le.u32(sqe.segment(), sqe.offset() + 44, offset);
        Le.u64(sqe.segment(), sqe.offset() + 48, value & 0xffffffffL);
        return sqe;
    }

    /** FCTYPE of a Fabrics SQE. */
    public static int fctype(Sqe sqe) {
        return Le.u8(sqe.segment(), sqe.offset() + 4);
    }

    /** Connect: RECFMT. */
    public static int connectRecfmt(Sqe sqe) {
        return Le.u16(sqe.segment(), sqe.offset() + 40);
    }

    /** Connect: QID. */
    public static int connectQid(Sqe sqe) {
        return Le.u16(sqe.segment(), sqe.offset() + 42);
    }

    /** Connect: SQSIZE, 0's based. */
    public static int connectSqsize(Sqe sqe) {
        return Le.u16(sqe.segment(), sqe.offset() + 44);
    }

    /** Connect: CATTR. */
    public static int connectCattr(Sqe sqe) {
        return Le.u8(sqe.segment(), sqe.offset() + 46);
    }

    /** Connect: KATO, ms. */
    public static int connectKato(Sqe sqe) {
        return Le.u32(sqe.segment(), sqe.offset() + 48);
    }

    /** Property Get/Set: ATTRIB. */
    public static int propertyAttrib(Sqe sqe) {
        return Le.u8(sqe.segment(), sqe.offset() + 40);
    }

    /** Property Get/Set: OFST. */
    public static int propertyOffset(Sqe sqe) {
        return Le.u32(sqe.segment(), sqe.offset() + 44);
    }

    /** Property Set: VALUE. */
    public static long propertyValue(Sqe sqe) {
        return Le.u64(sqe.segment(), sqe.offset() + 48);
    }
}
