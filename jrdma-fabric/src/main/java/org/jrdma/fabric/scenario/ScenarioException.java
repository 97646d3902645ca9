package org.jrdma.fabric.scenario;

/**
 * A scenario that cannot run: a malformed line, an unknown or missing field, an impossible value
 * (a negative rate, a buffer smaller than one MTU, a flow between unconnected hosts). The message
 * names the file, the line and the field: {@code dcqcn.fabric:7: link: field 'rate': ...}.
 */
public final class ScenarioException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final String field;

    /**
     * @param source the file name (or "scenario")
     * @param line   the 1-based line number, or 0 for the scenario as a whole
     * @param field  the field at fault, or null
     * @param detail what is wrong
     */
    public ScenarioException(String source, int line, String field, String detail) {
        super(source + (line > 0 ? ":" + line : "") + ": " + (field == null ? "" : "field '" + field + "': ")
                + detail);
        this.line = line;
        this.field = field;
    }

    /** The 1-based line, or 0. */
    public int line() {
        return line;
    }

    /** The field at fault, or null. */
    public String field() {
        return field;
    }
}
