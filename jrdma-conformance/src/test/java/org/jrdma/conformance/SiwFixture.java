package org.jrdma.conformance;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.iwarp.SiwDirectConnect;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.Verbs;

/**
 * The software iWARP provider (issue 12) in the conformance suite: devices {@code jsiwa} and
 * {@code jsiwb} on {@code 127.X.Y.3} and {@code 127.X.Y.4} (X, Y random per JVM), their RC QPs
 * connected over TCP by the provider ({@link SiwDirectConnect}), as siw's reach RTS only through
 * the CM. Its features are siw's; what it lacks against RoCE, and why:
 * <ul>
 *   <li>ATOMICS, IMMEDIATE: RDMAP (RFC 5040) has no atomics and no immediate data; siw refuses
 *       their WRs with EINVAL ({@code atomic_cap} 0, "Revisit atomic caps if RFC 7306 gets
 *       supported").</li>
 *   <li>UC, UD: siw creates RC QPs only ({@code siw_create_qp}: EOPNOTSUPP).</li>
 *   <li>RNR, ACK_TIMEOUT, PATH_MTU: iWARP runs over TCP, which retransmits; a SEND without a
 *       receive WQE is a Terminate, not an RNR NAK; FPDUs are sized by the TCP MSS, not a path MTU.</li>
 *   <li>MODIFY_TO_RTS: a QP reaches RTS through iw_cm with its socket only.</li>
 *   <li>MEMORY_WINDOWS: siw has none ({@code SIW_MAX_MW 0}); REREG_MR, RESIZE_CQ: siw implements
 *       neither verb; EXTENDED_API: siw's provider has no {@code ibv_wr_*} ops; ATOMIC_WRITE, FLUSH:
 *       not on iWARP; HARDWARE_COUNTERS: jsiw has them (jrdma's own names: siw has none), but the
 *       suite's counter test reads the responder's counters when the requester's WRITE completes,
 *       which on iWARP is when TCP took it, before the responder necessarily received it; jsiw's
 *       counters are tested in jrdma-iwarp (SiwHostilePeerTest, SiwMpaTest).</li>
 * </ul>
 */
final class SiwFixture implements ProviderFixture {
    static final SiwFixture INSTANCE = new SiwFixture();
    private static final String DEVICES;

    static {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int x = r.nextInt(1, 255), y = r.nextInt(1, 255);
        DEVICES = "jsiwa=127." + x + "." + y + ".3,jsiwb=127." + x + "." + y + ".4";
    }

    private final Set<Feature> features = EnumSet.of(Feature.INLINE, Feature.SOLICITED_EVENTS, Feature.RESOURCE_COUNTS,
            Feature.SRQ, Feature.ASYNC_EVENTS);

    @Override
    public String name() {
        return "iwarp";
    }

    @Override
    public Context openFirst() {
        System.setProperty("jrdma.devices", DEVICES);
        return Verbs.getDevice("jsiwa").open();
    }

    @Override
    public Context openSecond() {
        System.setProperty("jrdma.devices", DEVICES);
        return Verbs.getDevice("jsiwb").open();
    }

    @Override
    public boolean supports(Feature feature) {
        return features.contains(feature);
    }

    @Override
    public boolean connectRc(QueuePair a, QueuePair b, int depth) {
        SiwDirectConnect.connect(a, b, depth);
        return true;
    }
}
