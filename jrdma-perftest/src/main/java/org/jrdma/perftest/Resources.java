package org.jrdma.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SharedReceiveQueue;
import org.jrdma.verbs.SrqInitAttr;
import org.jrdma.verbs.VerbsException;

/**
 * The verbs resources of one run, perftest's {@code struct pingpong_context}: PD, one buffer and MR
 * shared by the QPs (send half, then receive half: {@code alloc_ctx}), CQs, QPs, and for UD the
 * address handles; and the QP state transitions of {@code ctx_modify_qp_to_init},
 * {@code ctx_modify_qp_to_rtr} and {@code ctx_modify_qp_to_rts}.
 */
final class Resources implements AutoCloseable {
    final Params p;
    final Context ctx;
    final Arena arena = Arena.ofShared();
    ProtectionDomain pd;
    CompletionChannel channel;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    MemorySegment buf;
    MemoryRegion mr;
    QueuePair[] qp;
    /** The receiving side's SRQ with {@code --use-srq}, else null. */
    SharedReceiveQueue srq;
    AddressHandle[] ah;
    /**
     * UD with {@code -R}: the peer QP's QPN and Q_Key of each QP as the CM made them known
     * ({@code cma_node.remote_qpn}, {@code remote_qkey}; {@link CmQps}), else unused (the QPN comes from
     * the hand-shake, the Q_Key is {@link Params#DEF_QKEY}).
     */
    int[] remoteQpn;
    int[] remoteQkey;
    /** Bytes of the whole buffer. */
    long buffSize;
    /** Bytes of one QP's half (send part or receive part). */
    long sendQpBuffSize;
    Gid gid;
    int lid;
    /**
     * Offset in {@link #buf} of the receive half of each QP as advertised to the peer by
     * {@link #myDests()}: where the peer's WRITEs land, whatever size a sweep ({@code -a}) is at.
     */
    long[] recvOffset;

    Resources(Params p, Context ctx) {
        this.p = p;
        this.ctx = ctx;
    }

    /** {@code BUFF_SIZE(size, cycle_buffer)}. */
    static long buffSizeOf(long size, int cycleBuffer) {
        return Math.max(size, cycleBuffer);
    }

    /** {@code INC(size, cache_line_size)}: the stride between consecutive messages in the buffer. */
    static long inc(long size, int cacheLine) {
        return size > cacheLine ? roundUp(size, cacheLine) : cacheLine;
    }

    static long roundUp(long v, long a) {
        return v % a == 0 ? v : a * (v / a + 1);
    }

    /** {@code ctx_init}: PD, buffer, MR, CQs, QPs in INIT. */
    void init() {
        try {
            if (p.useEvent) {
                channel = ctx.createCompChannel();
            }
            pd = ctx.allocPd();
            buffSize = inc(buffSizeOf(p.size, p.cycleBuffer), p.cacheLineSize) * 2 * p.numQps;
            sendQpBuffSize = buffSize / p.numQps / 2;
            if (p.connection == Params.Connection.UD) {
                buffSize += p.cacheLineSize;
            }
            buf = arena.allocate(buffSize, p.cycleBuffer);
            int access = AccessFlags.LOCAL_WRITE;
            switch (p.verb) {
                case WRITE -> access |= AccessFlags.REMOTE_WRITE;
                case READ -> access |= AccessFlags.REMOTE_READ;
                case ATOMIC -> access |= AccessFlags.REMOTE_ATOMIC;
                case SEND -> {
                }
            }
            if (!p.disablePcir) {
                access |= AccessFlags.RELAXED_ORDERING;
            }
            mr = pd.regMr(buf, access);
            sendCq = ctx.createCq(p.txDepth * p.numQps, channel);
            recvCq = p.verb == Verb.SEND ? ctx.createCq(p.rxDepth * p.numQps, channel) : sendCq;
            if (p.useSrq && (p.kind == Params.Kind.LAT || p.machine == Params.Machine.SERVER)) {
                SrqInitAttr si = new SrqInitAttr(); // perftest: the SRQ's max_wr is rx_depth
                si.attr().maxWr(p.rxDepth).maxSge(1);
                srq = pd.createSrq(si);
            }
            qp = new QueuePair[p.numQps];
            ah = new AddressHandle[p.numQps];
            remoteQpn = new int[p.numQps];
            remoteQkey = new int[p.numQps];
            if (!p.rdmaCm) {
                for (int i = 0; i < p.numQps; i++) {
                    qp[i] = pd.createQp(qpInitAttr());
                    modifyToInit(qp[i]);
                }
            }
        } catch (VerbsException e) {
            throw new PerftestException("couldn't create the RDMA resources on " + ctx.device().name() + ": "
                    + e.getMessage());
        }
    }

    /** {@code create_qp_main}'s attributes: the CQs, the SRQ, the depths, one SGE, the inline size. */
    private QpInitAttr qpInitAttr() {
        QpInitAttr ia = new QpInitAttr().sendCq(sendCq).recvCq(recvCq).qpType(qpType()).srq(srq);
        ia.cap().maxSendWr(p.txDepth).maxRecvWr(p.verb == Verb.SEND ? p.rxDepth : 1)
                .maxSendSge(1).maxRecvSge(1).maxInlineData(Math.max(p.inlineSize, 0));
        return ia;
    }

    /**
     * {@code -R}: QP {@code i} on the connection's CM ID ({@code rdma_create_qp}, which moves it to
     * INIT; the CM moves it on to RTR and RTS), replacing one of an earlier, failed attempt.
     */
    void createQpOn(org.jrdma.cm.CmId id, int i) {
        qp[i] = id.createQp(pd, qpInitAttr());
    }

    QpType qpType() {
        return switch (p.connection) {
            case RC -> QpType.RC;
            case UC -> QpType.UC;
            case UD -> QpType.UD;
        };
    }

    private void modifyToInit(QueuePair q) {
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(p.ibPort);
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT;
        if (p.connection == Params.Connection.UD) {
            a.qkey(Params.DEF_QKEY);
            mask |= QpAttrMask.QKEY;
        } else {
            a.qpAccessFlags(switch (p.verb) {
                case ATOMIC -> AccessFlags.REMOTE_ATOMIC;
                case READ -> AccessFlags.REMOTE_READ;
                case WRITE -> AccessFlags.REMOTE_WRITE;
                case SEND -> AccessFlags.REMOTE_WRITE | AccessFlags.LOCAL_WRITE;
            });
            mask |= QpAttrMask.ACCESS_FLAGS;
        }
        q.modify(a, mask);
    }

    /** The remote-visible address of QP i's receive half ({@code set_up_connection}). */
    long remoteVaddr(int i) {
        return buf.address() + (p.numQps + i) * buffSizeOf(p.size, p.cycleBuffer);
    }

    /** {@code set_up_connection}: this side's hand-shake data per QP, with a random 24-bit PSN. */
    Dest[] myDests() {
        Dest[] d = new Dest[p.numQps];
        recvOffset = new long[p.numQps];
        for (int i = 0; i < p.numQps; i++) {
            int psn = ThreadLocalRandom.current().nextInt() & 0xffffff;
            long vaddr = remoteVaddr(i);
            recvOffset[i] = vaddr - buf.address();
            d[i] = new Dest(lid, p.outReads, qp[i].qpNum(), psn, mr.rkey(), vaddr, gid, 0);
        }
        return d;
    }

    /**
     * {@code ctx_connect}: every QP to RTR, and to RTS on the side that sends (the client of a BW test,
     * both sides of a latency test); for UD the address handle of the sender.
     */
    void connect(Dest[] rem, Dest[] my) {
        boolean sends = p.kind == Params.Kind.LAT || p.machine == Params.Machine.CLIENT;
        for (int i = 0; i < p.numQps; i++) {
            QpAttr a = new QpAttr().qpState(QpState.RTR);
            AhAttr av = a.ahAttr();
            av.portNum(p.ibPort).dlid(rem[i].lid()).sl(0).srcPathBits(0).isGlobal(true);
            av.grh().dgid(rem[i].gid()).sgidIndex(p.gidIndex).hopLimit(0xff).trafficClass(0);
            int mask = QpAttrMask.STATE;
            if (p.connection != Params.Connection.UD) {
                a.pathMtu(Mtu.ofValue(p.currMtu)).destQpNum(rem[i].qpn()).rqPsn(rem[i].psn());
                mask |= QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
                if (p.connection == Params.Connection.RC) {
                    a.maxDestRdAtomic(my[i].outReads()).minRnrTimer(Params.MIN_RNR_TIMER);
                    mask |= QpAttrMask.MIN_RNR_TIMER | QpAttrMask.MAX_DEST_RD_ATOMIC;
                }
            }
            try {
                qp[i].modify(a, mask);
            } catch (VerbsException e) {
                throw new PerftestException("failed to modify QP " + CFormat.altHex(qp[i].qpNum(), 6) + " to RTR: "
                        + e.getMessage());
            }
            if (sends) {
                QpAttr r = new QpAttr().qpState(QpState.RTS).sqPsn(my[i].psn());
                int rmask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
                if (p.connection == Params.Connection.RC) {
                    r.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(rem[i].outReads());
                    rmask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                            | QpAttrMask.MAX_QP_RD_ATOMIC;
                }
                try {
                    qp[i].modify(r, rmask);
                } catch (VerbsException e) {
                    throw new PerftestException("failed to modify QP " + CFormat.altHex(qp[i].qpNum(), 6)
                            + " to RTS: " + e.getMessage());
                }
                if (p.connection == Params.Connection.UD) {
                    ah[i] = pd.createAh(av);
                }
            }
        }
    }

    /**
     * Frees the run's resources. The context is closed unless it is the CM's (rdma_cm mode: the CM
     * keeps the devices it opened for the life of the process, as librdmacm), whose QPs, MR, CQs and PD
     * are destroyed one by one instead, before the buffer is freed.
     */
    @Override
    public void close() {
        try {
            if (p.commRdmaCm()) {
                if (ah != null) {
                    for (AddressHandle a : ah) {
                        if (a != null) {
                            a.close();
                        }
                    }
                }
                if (qp != null) {
                    for (QueuePair q : qp) {
                        if (q != null) {
                            q.close();
                        }
                    }
                }
                if (srq != null) {
                    srq.close();
                }
                if (mr != null) {
                    mr.close();
                }
                if (recvCq != null && recvCq != sendCq) {
                    recvCq.close();
                }
                if (sendCq != null) {
                    sendCq.close();
                }
                if (pd != null) {
                    pd.close();
                }
            } else {
                ctx.close();
            }
        } catch (RuntimeException ignored) {
            // closing is best effort at exit
        }
        arena.close();
    }
}
