package org.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftCq#resize}: completions that wrap around the end of the old ring come out of the new
 * one in order, up and down; a resize below the completions present is EINVAL (rxe_cq_chk_attr)
 * and changes nothing.
 */
class SoftCqResizeTest {
    private final LoopbackContext ctx = new LoopbackContext();
    private long next;

    @AfterEach
    void close() {
        ctx.close();
    }

    private void push(SoftCq cq, int n) {
        for (int i = 0; i < n; i++) {
            assertTrue(cq.push(next++, WcStatus.SUCCESS, WcOpcode.RECV, 8, 0, 1, 0, 0, 0, false), "stored");
        }
    }

    private static void expect(SoftCq cq, long from, long to) {
        WorkCompletion[] wc = {new WorkCompletion()};
        for (long id = from; id < to; id++) {
            assertEquals(1, cq.poll(wc), "completion " + id);
            assertEquals(id, wc[0].wrId());
        }
        assertEquals(0, cq.poll(wc), "then empty");
    }

    /** A CQ of 4 slots whose 4 completions (wr_id 2..5) wrap around the ring's end (head at slot 2). */
    private SoftCq wrapped() {
        SoftCq cq = (SoftCq) ctx.createCq(4, null);
        assertEquals(4, cq.cqe());
        push(cq, 2);
        expect(cq, 0, 2);
        push(cq, 4);
        return cq;
    }

    @Test
    void upKeepsWrappedCompletionsInOrder() {
        SoftCq cq = wrapped();
        cq.resize(100);
        assertEquals(128, cq.cqe());
        push(cq, 100);
        expect(cq, 2, 106);
        assertEquals(0, cq.overruns());
    }

    @Test
    void downKeepsWrappedCompletionsInOrder() {
        SoftCq cq = (SoftCq) ctx.createCq(64, null);
        push(cq, 60);
        expect(cq, 0, 60);
        push(cq, 6); // slots 60..63, 0, 1
        cq.resize(6);
        assertEquals(8, cq.cqe());
        expect(cq, 60, 66);
        push(cq, 8);
        expect(cq, 66, 74);
    }

    @Test
    void belowTheCompletionsPresentIsEinvalAndChangesNothing() {
        SoftCq cq = wrapped();
        VerbsException e = assertThrows(VerbsException.class, () -> cq.resize(3));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(4, cq.cqe());
        expect(cq, 2, 6);
    }

    @Test
    void outOfRangeIsEinval() {
        SoftCq cq = (SoftCq) ctx.createCq(4, null);
        for (int bad : new int[] {0, -1, SoftLimits.MAX_CQE + 1}) {
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> cq.resize(bad)).errno(), "cqe " + bad);
        }
    }
}
