package org.jrdma.perftest;

/** The operation a test measures, perftest's {@code VerbType}; {@link #title()} is its {@code testsStr} entry. */
public enum Verb {
    SEND("Send"), WRITE("RDMA_Write"), READ("RDMA_Read"), ATOMIC("Atomic");

    private final String title;

    Verb(String title) {
        this.title = title;
    }

    /** The word in the header line, e.g. "RDMA_Write" in "RDMA_Write BW Test". */
    public String title() {
        return title;
    }
}
