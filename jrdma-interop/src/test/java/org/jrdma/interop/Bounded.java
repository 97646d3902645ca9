package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child process with a deadline: stdout and stderr go to one file; past the deadline it gets
 * SIGTERM (which {@code lab exec} turns into a kill of the guest job, and which ends a JVM), then
 * SIGKILL 10 s later, its descendants too. Nothing outlives the test.
 */
final class Bounded implements AutoCloseable {
    /** Exit code reported for a process that had to be killed at its deadline (as timeout(1)). */
    static final int TIMED_OUT = 124;

    final List<String> command;
    final Path output;
    private final Process process;

    private Bounded(List<String> command, Path output, Process process) {
        this.command = command;
        this.output = output;
        this.process = process;
    }

    /** Starts {@code command} with {@code env} added to this JVM's environment, output to {@code output}. */
    static Bounded start(List<String> command, Map<String, String> env, Path output) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(output.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        return new Bounded(command, output, pb.start());
    }

    /** Runs {@code command} to its end or its deadline; returns its exit code ({@link #TIMED_OUT} if killed). */
    static int run(List<String> command, Map<String, String> env, Path output, Duration limit)
            throws IOException, InterruptedException {
        try (Bounded b = start(command, env, output)) {
            return b.await(limit);
        }
    }

    /** The processes the command started (e.g. the JVM under {@code ip netns exec ... timeout}). */
    java.util.stream.Stream<ProcessHandle> descendants() {
        return process.descendants();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Waits up to {@code limit}; returns the exit code, or kills the process and returns {@link #TIMED_OUT}. */
    int await(Duration limit) throws InterruptedException {
        if (process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        kill();
        return TIMED_OUT;
    }

    private void kill() throws InterruptedException {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        for (ProcessHandle c : children) {
            c.destroyForcibly();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
