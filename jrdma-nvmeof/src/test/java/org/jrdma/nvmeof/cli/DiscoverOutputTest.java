package org.jrdma.nvmeof.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jrdma.nvmeof.wire.DiscoveryLog;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma nvme discover}'s output against Linux nvme-cli's for the same discovery log
 * ({@code testdata/captures-nvmeof/nvme-discover.g2.txt}: {@code nvme discover} in g2 against the lab's
 * nvmet target in g1). The log's field values are those of Linux's nvmet for that port (NVMe-oF 1.1
 * Figure 41 codes: TRTYPE 1 RDMA, ADRFAM 1 IPv4, SUBTYPE 3 current discovery subsystem and 2 NVM
 * subsystem, TREQ 4 "SQ flow control disable supported", RDMA_PRTYPE 1, RDMA_QPTYPE 1, RDMA_CMS 1).
 */
class DiscoverOutputTest {
    @Test
    void printsTheDiscoveryLogAsNvmeCli() throws Exception {
        Path linux = Path.of(System.getProperty("jrdma.testdata", "../testdata"), "captures-nvmeof", "nvme-discover.g2.txt");
        DiscoveryLog log = new DiscoveryLog(2, 2, 0, List.of(
                new DiscoveryLog.Entry(1, 1, 3, 4, 1, 0xffff, 32, 0, "4420", "nqn.2014-08.org.nvmexpress.discovery",
                        "10.77.0.11", 1, 1, 1, 0),
                new DiscoveryLog.Entry(1, 1, 2, 4, 1, 0xffff, 32, 0, "4420", "nqn.2026-01.org.jrdma:lab",
                        "10.77.0.11", 1, 1, 1, 0)));
        StringWriter s = new StringWriter();
        try (PrintWriter p = new PrintWriter(s)) {
            NvmeCommand.print(p, log);
        }
        assertEquals(Files.readString(linux), s.toString().replace(System.lineSeparator(), "\n"));
    }
}
