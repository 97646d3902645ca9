package org.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.ServiceLoader;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.spi.Provider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Discovery on a machine without kernel RDMA devices (this one, CI): the provider is found through
 * the SPI and offers no devices, with the reason kept for the debug log.
 */
class IbvProviderTest {
    @Test
    void foundThroughTheSpi() {
        boolean found = false;
        for (Provider p : ServiceLoader.load(Provider.class)) {
            found |= p instanceof IbvProvider && p.name().equals("ibverbs");
        }
        assertTrue(found, "META-INF/services names IbvProvider");
    }

    @Test
    void noKernelDevicesMeansNoDevicesAndAReason() {
        String[] kernel = new File("/sys/class/infiniband").list();
        Assumptions.assumeTrue(kernel == null || kernel.length == 0, "this machine has kernel RDMA devices");
        List<Device> devices = new IbvProvider().devices();
        assertEquals(List.of(), devices);
        String why = IbvProvider.unavailableReason();
        assertNotNull(why);
        assertTrue(why.contains("finds no RDMA device") || why.contains("could not be loaded"), why);
    }
}
