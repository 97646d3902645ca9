package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Base Transport Header flyweight, 12 bytes, big-endian (IBTA Vol 1 §9.2, figure "BTH"; RoCE v2:
 * Annex A17.4, which gives FECN/BECN their congestion meaning).
 *
 * <pre>
 * byte 0      OpCode (8)
 * byte 1      SE (1) | M = MigReq (1) | PadCnt (2) | TVer (4)
 * bytes 2-3   P_Key (16)
 * byte 4      FECN (1) | BECN (1) | resv6 (6)        (masked to 0xFF in the ICRC)
 * bytes 5-7   DestQP (24)
 * byte 8      A = AckReq (1) | resv7 (7)
 * bytes 9-11  PSN (24)
 * </pre>
 *
 * Setters mask values to the field width (high bits are ignored) and leave the reserved bits alone; they
 * never throw except {@link IndexOutOfBoundsException} when the wrapped segment is too short. Not
 * thread-safe; one instance per thread, re-{@link #wrap}ped per packet.
 */
public final class Bth {
    /** Header length in bytes. */
    public static final int LENGTH = 12;

    private MemorySegment seg;
    private long off;

    /**
     * Points this flyweight at {@code seg[offset, offset+12)}.
     *
     * @return this
     */
    public Bth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** The wrapped segment. */
    public MemorySegment segment() {
        return seg;
    }

    /** The offset of the header in {@link #segment()}. */
    public long offset() {
        return off;
    }

    /** OpCode, 0..255 (§9.2.1, table 38; see {@link Opcode}). */
    public int opcode() {
        return Be.u8(seg, off);
    }

    /** Sets OpCode (low 8 bits). */
    public Bth opcode(int v) {
        Be.u8(seg, off, v);
        return this;
    }

    /** SE, solicited event (§9.2.2). */
    public boolean se() {
        return (Be.u8(seg, off + 1) & 0x80) != 0;
    }

    /** Sets {@link #se()}. @return this */
    public Bth se(boolean v) {
        Be.bit(seg, off + 1, 0x80, v);
        return this;
    }

    /** M, the MigReq bit (§9.2.3). rxe sends 0, ConnectX 1; receivers ignore it. */
    public boolean migReq() {
        return (Be.u8(seg, off + 1) & 0x40) != 0;
    }

    /** Sets {@link #migReq()}. @return this */
    public Bth migReq(boolean v) {
        Be.bit(seg, off + 1, 0x40, v);
        return this;
    }

    /** PadCnt, 0..3: bytes of pad after the payload that make it a multiple of 4 (§9.2.4). */
    public int padCount() {
        return (Be.u8(seg, off + 1) >>> 4) & 0x3;
    }

    /** Sets {@link #padCount()} (masked to the field width). @return this */
    public Bth padCount(int v) {
        int b = Be.u8(seg, off + 1);
        Be.u8(seg, off + 1, (b & ~0x30) | ((v & 0x3) << 4));
        return this;
    }

    /** TVer, transport header version, 0..15; must be 0 (§9.2.5). */
    public int tver() {
        return Be.u8(seg, off + 1) & 0xf;
    }

    /** Sets {@link #tver()} (masked to the field width). @return this */
    public Bth tver(int v) {
        int b = Be.u8(seg, off + 1);
        Be.u8(seg, off + 1, (b & ~0x0f) | (v & 0xf));
        return this;
    }

    /** P_Key, partition key, 16 bits (§9.2.6); 0xFFFF is the default full-member key. */
    public int pkey() {
        return Be.u16(seg, off + 2);
    }

    /** Sets {@link #pkey()} (masked to the field width). @return this */
    public Bth pkey(int v) {
        Be.u16(seg, off + 2, v);
        return this;
    }

    /** FECN, forward explicit congestion notification (Annex A17.4, §A17.9). */
    public boolean fecn() {
        return (Be.u8(seg, off + 4) & 0x80) != 0;
    }

    /** Sets {@link #fecn()}. @return this */
    public Bth fecn(boolean v) {
        Be.bit(seg, off + 4, 0x80, v);
        return this;
    }

    /** BECN, backward explicit congestion notification. */
    public boolean becn() {
        return (Be.u8(seg, off + 4) & 0x40) != 0;
    }

    /** Sets {@link #becn()}. @return this */
    public Bth becn(boolean v) {
        Be.bit(seg, off + 4, 0x40, v);
        return this;
    }

    /** The 6 reserved bits of byte 4 (transmitted as 0). */
    public int resv6() {
        return Be.u8(seg, off + 4) & 0x3f;
    }

    /** DestQP, the destination QPN, 24 bits (§9.2.7). */
    public int destQpn() {
        return Be.u24(seg, off + 5);
    }

    /** Sets {@link #destQpn()} (masked to the field width). @return this */
    public Bth destQpn(int v) {
        Be.u24(seg, off + 5, v & 0xffffff);
        return this;
    }

    /** A, AckReq: the requester asks for an acknowledgment (§9.2.8). */
    public boolean ackReq() {
        return (Be.u8(seg, off + 8) & 0x80) != 0;
    }

    /** Sets {@link #ackReq()}. @return this */
    public Bth ackReq(boolean v) {
        Be.bit(seg, off + 8, 0x80, v);
        return this;
    }

    /** The 7 reserved bits of byte 8 (transmitted as 0). */
    public int resv7() {
        return Be.u8(seg, off + 8) & 0x7f;
    }

    /** PSN, packet sequence number, 24 bits, 0..0xFFFFFF (§9.2.9). */
    public int psn() {
        return Be.u24(seg, off + 9);
    }

    /** Sets {@link #psn()} (masked to the field width). @return this */
    public Bth psn(int v) {
        Be.u24(seg, off + 9, v & 0xffffff);
        return this;
    }
}
