package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * The RoCE v2 Congestion Notification Packet (IBTA Vol 1 Annex A17.9.2): what a notification point
 * (the receiver of a packet marked ECN-CE) sends to the source QP of the marked flow, so that its
 * reaction point (DCQCN) lowers the rate. Its UDP payload is 32 bytes:
 *
 * <pre>
 * BTH (12)   OpCode 0x81 (CNP); SE 0, M 0, PadCnt 0, TVer 0; P_Key; FECN 0, BECN 1;
 *            DestQP = the QPN of the QP whose packet was marked; AckReq 0; PSN 0
 * reserved (16) zero
 * ICRC (4)
 * </pre>
 *
 * The layout is the one of NVIDIA's "RoCEv2 CNP Packet Format Example" (a ConnectX CNP: BTH
 * {@code 8100FFFF 400000D2 00000000}, 16 zero bytes, ICRC) and of Wireshark's RRoCE dissector
 * (opcode 0x81 "CNP", 16 reserved bytes after BTH). The transport computes the ICRC as for any
 * packet ({@link Icrc}); the IP header's DSCP/ECN are the sender's choice. Static and
 * allocation-free.
 */
public final class Cnp {
    /** BTH and the 16 reserved bytes, without the ICRC: 28 bytes. */
    public static final int LENGTH = Bth.LENGTH + Opcode.CNP_RESERVED_LENGTH;
    /** The BECN bit of BTH byte 4. */
    private static final int BECN = 0x40;

    private Cnp() {
    }

    /**
     * Writes a CNP's BTH and reserved bytes ({@link #LENGTH} bytes) at {@code seg[off]}.
     *
     * @param destQpn the QPN of the QP that sent the marked packet (24 bits; higher bits ignored)
     * @param pkey    the P_Key (16 bits), 0xFFFF for the default partition
     * @throws IndexOutOfBoundsException if the segment is shorter than {@code off + LENGTH}
     */
    public static void write(MemorySegment seg, long off, int destQpn, int pkey) {
        for (int i = 0; i < LENGTH; i++) {
            Be.u8(seg, off + i, 0);
        }
        Be.u8(seg, off, Opcode.CNP);           // SE, M, PadCnt, TVer: 0
        Be.u16(seg, off + 2, pkey & 0xffff);
        Be.u8(seg, off + 4, BECN);             // FECN 0, BECN 1, resv6 0
        Be.u24(seg, off + 5, destQpn & 0xffffff);
        // byte 8: AckReq 0, resv7 0; PSN 0; then the reserved bytes
    }

    /** True if the packet at {@code seg[off]} is a CNP (its BTH OpCode is 0x81). */
    public static boolean isCnp(MemorySegment seg, long off) {
        return Be.u8(seg, off) == Opcode.CNP;
    }
}
