package org.jrdma.rocev2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Verbs;
import org.junit.jupiter.api.Test;

/** A device event (IBV_EVENT_DEVICE_FATAL) reaches every context open on the device, with no element. */
class DeviceEventsTest {
    @Test
    void aDeviceEventGoesToEveryContextOfTheDevice() {
        String saved = System.getProperty("jrdma.devices");
        int r = ThreadLocalRandom.current().nextInt(1, 255);
        System.setProperty("jrdma.devices", "evt0=127.91." + r + ".1");
        try (Context c1 = Verbs.getDevice("evt0").open(); Context c2 = Verbs.getDevice("evt0").open()) {
            ((RxeContext) c1).resources().raiseDeviceEvent(AsyncEventType.DEVICE_FATAL, 0);
            for (Context c : new Context[] {c1, c2}) {
                AsyncEvent e = c.getAsyncEvent(5, TimeUnit.SECONDS);
                assertNotNull(e, "DEVICE_FATAL in each context");
                assertEquals(AsyncEventType.DEVICE_FATAL, e.type());
                assertNull(e.qp());
                assertNull(e.cq());
                assertNull(e.srq());
                assertEquals(0, e.portNum(), "no port in a device event");
                e.ack();
                assertNull(c.getAsyncEvent(0, TimeUnit.SECONDS), "one event");
            }
        } finally {
            if (saved != null) {
                System.setProperty("jrdma.devices", saved);
            } else {
                System.clearProperty("jrdma.devices");
            }
        }
    }
}
