package org.jrdma.verbs.ext;

/**
 * The live objects of a device, over all contexts open on it in this process, as
 * {@code rdma resource show} counts them (pd, cq, qp, mr). Reached through
 * {@link org.jrdma.verbs.Context#extension(Class)}; for leak checks. Any thread.
 */
public interface ResourceCounts {
    /** Protection domains allocated and not deallocated. */
    int pds();

    /** Completion queues created and not destroyed. */
    int cqs();

    /** Queue pairs created and not destroyed. */
    int qps();

    /** Memory regions registered and not deregistered. */
    int mrs();
}
