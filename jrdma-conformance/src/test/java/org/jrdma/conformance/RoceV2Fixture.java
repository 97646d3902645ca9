package org.jrdma.conformance;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Verbs;

/**
 * The software RoCE v2 provider in the conformance suite: two devices {@code ca} and {@code cb} on
 * {@code 127.X.Y.1} and {@code 127.X.Y.2} with X, Y chosen at random once per JVM (other runs on
 * this machine use 127.0.0.1/.2 port 4791 at the same time).
 */
final class RoceV2Fixture implements ProviderFixture {
    static final RoceV2Fixture INSTANCE = new RoceV2Fixture();
    private static final String DEVICES;

    static {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int x = r.nextInt(1, 255), y = r.nextInt(1, 255);
        DEVICES = "ca=127." + x + "." + y + ".1,cb=127." + x + "." + y + ".2";
    }

    /** Everything but UD: creating a UD QP is EOPNOTSUPP in this provider so far. */
    private final Set<Feature> features = EnumSet.complementOf(EnumSet.of(Feature.UD));

    @Override
    public String name() {
        return "rocev2";
    }

    @Override
    public Context openFirst() {
        System.setProperty("jrdma.devices", DEVICES);
        return Verbs.getDevice("ca").open();
    }

    @Override
    public Context openSecond() {
        System.setProperty("jrdma.devices", DEVICES);
        return Verbs.getDevice("cb").open();
    }

    @Override
    public boolean supports(Feature feature) {
        return features.contains(feature);
    }
}
