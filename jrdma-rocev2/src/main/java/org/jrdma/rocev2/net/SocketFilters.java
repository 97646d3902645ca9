package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Classic BPF socket filters ({@code SO_ATTACH_FILTER}, {@code socket(7)}, opcodes from
 * {@code <linux/bpf_common.h>}). A program is a {@code long[]} of instructions, each packed as
 * {@code code << 48 | jt << 40 | jf << 32 | k}, written out as {@code struct sock_filter} (8 bytes:
 * u16 code, u8 jt, u8 jf, u32 k) behind a {@code struct sock_fprog} (u16 len, pointer).
 */
final class SocketFilters {
    private SocketFilters() {
    }

    // <linux/bpf_common.h>
    static final int BPF_LD = 0x00;
    static final int BPF_LDX = 0x01;
    static final int BPF_JMP = 0x05;
    static final int BPF_RET = 0x06;
    static final int BPF_H = 0x08;
    static final int BPF_B = 0x10;
    static final int BPF_ABS = 0x20;
    static final int BPF_IND = 0x40;
    static final int BPF_MSH = 0xa0;
    static final int BPF_W = 0x00;
    static final int BPF_ALU = 0x04;
    static final int BPF_AND = 0x50;
    static final int BPF_RSH = 0x70;
    static final int BPF_JEQ = 0x10;
    static final int BPF_JSET = 0x40;
    static final int BPF_K = 0x00;

    static long insn(int code, int jt, int jf, int k) {
        return ((long) code << 48) | ((long) (jt & 0xff) << 40) | ((long) (jf & 0xff) << 32) | (k & 0xffffffffL);
    }

    /** Drops every packet: {@code ret #0}. */
    static final long[] DROP_ALL = {insn(BPF_RET | BPF_K, 0, 0, 0)};

    /**
     * For a raw IPv4 socket (the packet starts at the IPv4 header): accepts an unfragmented datagram
     * (fragment offset 0 and MF clear) whose UDP destination port is {@code port}, drops the rest.
     * <pre>
     *   ldh [6]                  ; flags + fragment offset
     *   jset #0x3fff, drop       ; MF or offset: a fragment
     *   ldxb 4*([0]&amp;0xf)        ; X = IPv4 header length
     *   ldh [x+2]                ; UDP destination port
     *   jeq #port, accept, drop
     * accept: ret #262144
     * drop:   ret #0
     * </pre>
     */
    static long[] ipv4UdpDestinationPort(int port) {
        return new long[] {
                insn(BPF_LD | BPF_H | BPF_ABS, 0, 0, 6),
                insn(BPF_JMP | BPF_JSET | BPF_K, 4, 0, 0x3fff),
                insn(BPF_LDX | BPF_B | BPF_MSH, 0, 0, 0),
                insn(BPF_LD | BPF_H | BPF_IND, 0, 0, 2),
                insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, port),
                insn(BPF_RET | BPF_K, 0, 0, 262144),
                insn(BPF_RET | BPF_K, 0, 0, 0),
        };
    }

    /** What a reuseport program returns for "no socket of mine": out of range, so the kernel picks one by hash. */
    static final int NO_INDEX = 0xFFFF_FFFF;

    /**
     * For a SO_REUSEPORT group ({@code SO_ATTACH_REUSEPORT_CBPF}): the kernel runs it with the packet
     * starting at the UDP payload (it pulls the UDP header first, {@code net/core/sock_reuseport.c}
     * {@code run_bpf_filter}), and the value returned is the index of the group's socket that gets
     * the datagram; an index outside the group makes the kernel choose by the flow hash. The slot of
     * a RoCE v2 packet is its BTH destination QPN (payload bytes 5..7, big-endian) shifted right by
     * {@code shift}; the program returns the index {@code i} with {@code slotOfIndex[i] == slot},
     * else {@link #NO_INDEX}. A datagram shorter than 8 bytes ends the program at the load, which
     * returns 0: socket 0 gets it (and counts it as too short).
     * <pre>
     *   ld [4]                 ; resv8 | destination QPN
     *   and #0xffffff
     *   rsh #shift             ; A = slot
     *   jeq #slot0, 0, 1       ; for each index i
     *   ret #i
     *   ...
     *   ret #0xffffffff
     * </pre>
     *
     * @param slotOfIndex the slot of each socket of the group, by its index in the group; at most 2000
     */
    static long[] reuseportByQpnSlot(int shift, int[] slotOfIndex) {
        if (slotOfIndex.length > 2000) {
            throw new IllegalArgumentException(slotOfIndex.length + " sockets in one group");
        }
        long[] p = new long[4 + 2 * slotOfIndex.length];
        int i = 0;
        p[i++] = insn(BPF_LD | BPF_W | BPF_ABS, 0, 0, 4);
        p[i++] = insn(BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xFFFFFF);
        p[i++] = insn(BPF_ALU | BPF_RSH | BPF_K, 0, 0, shift);
        for (int index = 0; index < slotOfIndex.length; index++) {
            p[i++] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, slotOfIndex[index]);
            p[i++] = insn(BPF_RET | BPF_K, 0, 0, index);
        }
        p[i] = insn(BPF_RET | BPF_K, 0, 0, NO_INDEX);
        return p;
    }

    /**
     * {@link #ipv4UdpDestinationPort} for one of several processes sharing a device: of the datagrams
     * to {@code port} it accepts those whose BTH destination QPN (UDP payload bytes 5..7) shifted
     * right by {@code shift} is {@code ownSlot}, and, when {@code othersLive} is not null (this
     * process answers for the QPNs nobody owns), those whose slot is none of {@code othersLive}.
     * A datagram too short for a BTH ends the program at the load, which drops it.
     * <pre>
     *   ldh [6]; jset #0x3fff, drop; ldxb 4*([0]&amp;0xf); ldh [x+2]; jeq #port, 0, drop
     *   ld [x+12]; and #0xffffff; rsh #shift      ; A = slot (UDP header 8 + BTH bytes 4..7)
     *   jeq #ownSlot, accept, 0
     *   jeq #other1, drop, 0 ...                  ; only when answering for the unowned slots
     *   ret #0 (owner only) / ret #262144 (answering for the rest)
     * </pre>
     */
    static long[] ipv4UdpDestinationPortAndQpnSlot(int port, int shift, int ownSlot, int[] othersLive) {
        int others = othersLive == null ? 0 : othersLive.length;
        if (others > 200) {
            throw new IllegalArgumentException(others + " sharing processes");
        }
        int n = 11 + others;
        long[] p = new long[n];
        int accept = n - 2;
        int drop = n - 1;
        int i = 0;
        p[i++] = insn(BPF_LD | BPF_H | BPF_ABS, 0, 0, 6);
        p[i] = insn(BPF_JMP | BPF_JSET | BPF_K, drop - i - 1, 0, 0x3fff);
        i++;
        p[i++] = insn(BPF_LDX | BPF_B | BPF_MSH, 0, 0, 0);
        p[i++] = insn(BPF_LD | BPF_H | BPF_IND, 0, 0, 2);
        p[i] = insn(BPF_JMP | BPF_JEQ | BPF_K, 0, drop - i - 1, port);
        i++;
        p[i++] = insn(BPF_LD | BPF_W | BPF_IND, 0, 0, 12);
        p[i++] = insn(BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xFFFFFF);
        p[i++] = insn(BPF_ALU | BPF_RSH | BPF_K, 0, 0, shift);
        p[i] = insn(BPF_JMP | BPF_JEQ | BPF_K, accept - i - 1, othersLive == null ? drop - i - 1 : 0, ownSlot);
        i++;
        for (int k = 0; k < others; k++) {
            p[i] = insn(BPF_JMP | BPF_JEQ | BPF_K, drop - i - 1, 0, othersLive[k]);
            i++;
        }
        // fall through to accept (answering for the unowned slots)
        p[i++] = insn(BPF_RET | BPF_K, 0, 0, 262144);
        p[i] = insn(BPF_RET | BPF_K, 0, 0, 0);
        return p;
    }

    /** Attaches {@code program} to {@code fd}; the kernel copies it, so the memory is freed after. */
    static void attach(int fd, long[] program, MemorySegment errno) {
        attach(fd, LibC.SO_ATTACH_FILTER, "SO_ATTACH_FILTER", program, errno);
    }

    /** Attaches {@code program} as the socket filter or reuseport program {@code option} of {@code fd}. */
    static void attach(int fd, int option, String optionName, long[] program, MemorySegment errno) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment insns = a.allocate(8L * program.length, 8);
            for (int i = 0; i < program.length; i++) {
                long p = program[i];
                insns.set(JAVA_SHORT, 8L * i, (short) (p >>> 48));
                insns.set(JAVA_BYTE, 8L * i + 2, (byte) (p >>> 40));
                insns.set(JAVA_BYTE, 8L * i + 3, (byte) (p >>> 32));
                insns.set(JAVA_INT, 8L * i + 4, (int) p);
            }
            MemorySegment fprog = a.allocate(16, 8);
            fprog.set(JAVA_SHORT, 0, (short) program.length);
            fprog.set(JAVA_LONG, 8, insns.address());
            int r = (int) LibC.SETSOCKOPT.invokeExact(errno, fd, LibC.SOL_SOCKET, option, fprog, 16);
            if (r < 0) {
                throw NetException.of("setsockopt(" + optionName + ")", LibC.errno(errno));
            }
        } catch (NetException e) {
            throw e;
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }
}
