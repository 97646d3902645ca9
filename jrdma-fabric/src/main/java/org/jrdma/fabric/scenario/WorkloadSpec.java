package org.jrdma.fabric.scenario;

/**
 * A request/response storage workload (the Ceph case study, FABRIC-REFERENCE.md §7 and F16): the
 * first {@code osds} hosts are OSD nodes, the next {@code clients} hosts their clients. Each client
 * issues reads as a Poisson process of {@code iopsPerClient}, each to an OSD chosen uniformly; a
 * read is a request message of {@code requestBytes} on the client's connection to that OSD, the
 * OSD's service (a FIFO to {@code osdWorkers} op threads, each read taking
 * {@code osdServicePs + Exp(osdJitterPs)}: the OSD service time is an input, not a model output),
 * and a response of {@code responseBytes} back. Connections (one per client and OSD, each way)
 * use the scenario's transport. Latency is measured from the read's issue to the response's
 * delivery to the client application (after the receive-side CPU cost of {@link CpuSpec}); reads
 * issued before {@code warmupPs} are not counted.
 *
 * @param osds          OSD nodes (the first hosts)
 * @param clients       clients (the hosts after them)
 * @param iopsPerClient reads per second each client issues (Poisson)
 * @param requestBytes  the request message (Ceph MOSDOp for a 4 KiB read: a few hundred bytes)
 * @param responseBytes the response message (4 KiB of data plus the reply header)
 * @param osdServicePs  the fixed part of the OSD's service time per read
 * @param osdJitterPs   the mean of its exponential part (0: fixed)
 * @param osdWorkers    reads an OSD serves at once (Ceph: osd_op_num_shards × threads per shard)
 * @param priority      the connections' priority (Ceph {@code ms_async_rdma_sl} 3)
 * @param warmupPs      reads issued before this are not measured
 * @param line          the scenario line
 */
public record WorkloadSpec(int osds, int clients, double iopsPerClient, long requestBytes, long responseBytes,
        long osdServicePs, long osdJitterPs, int osdWorkers, int priority, long warmupPs, int line) {
}
