package org.jrdma.perftest;

import java.io.PrintStream;
import picocli.CommandLine;
import org.jrdma.verbs.VerbsException;

/**
 * Runs the tools with perftest's error behaviour made civil: a bad option or value, or any failure
 * at run time, prints one line {@code "<tool>: <reason>"} on stderr and exits non-zero (2 for a
 * usage error, 1 for a failure), never a stack trace (set {@code -Djrdma.debug=true} to see one).
 */
public final class Tools {
    /** Exit status of a usage error (unknown option, bad value). */
    public static final int EXIT_USAGE = 2;
    /** Exit status of a failure while running. */
    public static final int EXIT_FAILURE = 1;

    private Tools() {
    }

    /** The picocli command line of a tool, with the one-line error handlers. */
    public static CommandLine commandLine(String tool, Verb verb, Params.Kind kind, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new PerftestCommand(verb, kind, out));
        cl.setCommandName(tool);
        return configure(cl, out, err);
    }

    /** Installs the version text, output streams and one-line error handlers on a command line. */
    static CommandLine configure(CommandLine cl, PrintStream out, PrintStream err) {
        cl.getCommandSpec().version("Version: " + OobChannel.VERSION + " (jrdma, perftest 4.5 compatible)");
        for (CommandLine sub : cl.getSubcommands().values()) {
            sub.getCommandSpec().version("Version: " + OobChannel.VERSION + " (jrdma, perftest 4.5 compatible)");
        }
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setParameterExceptionHandler((ex, args) -> {
            err.println(ex.getCommandLine().getCommandName() + ": " + oneLine(ex.getMessage()));
            err.flush();
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (Boolean.getBoolean("jrdma.debug")) {
                ex.printStackTrace(err);
            }
            err.println(commandLine.getCommandName() + ": " + describe(ex));
            err.flush();
            return EXIT_FAILURE;
        });
        return cl;
    }

    /** The one line a failure prints. */
    static String describe(Throwable ex) {
        if (ex instanceof PerftestException || ex instanceof VerbsException) {
            return oneLine(ex.getMessage());
        }
        String m = ex.getMessage();
        return oneLine(ex.getClass().getSimpleName() + (m == null ? "" : ": " + m));
    }

    static String oneLine(String s) {
        if (s == null) {
            return "error";
        }
        return s.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /**
     * Runs a tool with {@code args} and returns its exit status (0 on success).
     */
    public static int run(String tool, Verb verb, Params.Kind kind, String[] args) {
        return commandLine(tool, verb, kind, System.out, System.err).execute(args);
    }
}
