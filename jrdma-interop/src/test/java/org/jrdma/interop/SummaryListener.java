package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * At the end of the interop test run, prints the table of all perftest runs ({@link Results#summary})
 * and writes it to {@code target/interop/summary.txt} (which bin/test prints in its final summary;
 * its filtered console leaves these lines out). Registered in
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 */
public final class SummaryListener implements TestExecutionListener {
    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        try {
            Path dir = PerftestPair.outputDir();
            List<String> table = Results.summary(dir);
            if (table.isEmpty()) {
                return;
            }
            Files.write(dir.resolve(Results.SUMMARY), table);
            System.out.println("---- summary of the perftest runs (" + dir.resolve(Results.SUMMARY) + ") ----");
            for (String l : table) {
                System.out.println(l);
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("no summary of the perftest runs: " + e);
        }
    }
}
