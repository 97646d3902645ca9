package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

/**
 * What siw refuses at the verbs level, with siw's errno: memory windows (no {@code alloc_mw} in
 * siw's device ops nor in rdma-core's siw provider, so libibverbs' fallback answers EOPNOTSUPP;
 * {@code max_mw} 0). Immediate data, atomics and UD/UC QPs are in
 * {@link SiwCmLoopbackTest#whatIwarpLacksFailsAsSiw()} (EINVAL from {@code siw_post_send},
 * EOPNOTSUPP from {@code siw_create_qp}).
 */
class SiwVerbsSemanticsTest {
    @Test
    void allocMwIsNotSupported() {
        int r = java.util.concurrent.ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "jsiwmw" + r + "=127.95." + r + ".1");
        try (Context c = Verbs.getDevice("jsiwmw" + r).open()) {
            ProtectionDomain pd = c.allocPd();
            assertEquals(0, c.queryDevice().maxMw());
            for (MwType t : MwType.values()) {
                VerbsException e = assertThrows(VerbsException.class, () -> pd.allocMw(t));
                assertEquals(Errno.EOPNOTSUPP, e.errno(), t.toString());
            }
            pd.close();
        }
    }
}
