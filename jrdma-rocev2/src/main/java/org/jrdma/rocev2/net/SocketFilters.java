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

    /** Attaches {@code program} to {@code fd}; the kernel copies it, so the memory is freed after. */
    static void attach(int fd, long[] program, MemorySegment errno) {
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
            int r = (int) LibC.SETSOCKOPT.invokeExact(errno, fd, LibC.SOL_SOCKET, LibC.SO_ATTACH_FILTER, fprog, 16);
            if (r < 0) {
                throw NetException.of("setsockopt(SO_ATTACH_FILTER)", LibC.errno(errno));
            }
        } catch (NetException e) {
            throw e;
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }
}
