package org.jrdma.fabric.scenario;

/**
 * The TCP model of {@code nic transport=tcp} and {@code transport=iwarp} (an iWARP RNIC runs the
 * same TCP in hardware: RFC 5040/5044 over TCP; only its CPU cost differs). NewReno congestion
 * control (RFC 6582) with SACK loss recovery (RFC 2018, RFC 6675's pipe, every hole below the
 * highest SACKed byte counted lost), RFC 6298 retransmission timer with a floor, an ACK for every
 * segment (no delayed ACK, as HPCC's hardware-style DCTCP), and DCTCP (RFC 8257) as an option.
 *
 * @param minRtoPs        the RTO floor (Linux {@code TCP_RTO_MIN}: 200 ms)
 * @param initialRtoPs    the RTO before the first RTT sample (RFC 6298: 1 s)
 * @param initCwndSegments the initial window in segments (RFC 6928: 10)
 * @param dctcp           DCTCP: ECT on data, the receiver echoes CE per segment, the sender cuts
 *                        cwnd by α/2 once per window
 * @param dctcpG          DCTCP's gain g (RFC 8257: 1/16)
 */
public record TcpSpec(long minRtoPs, long initialRtoPs, int initCwndSegments, boolean dctcp, double dctcpG) {
    /** Linux's defaults: min RTO 200 ms, initial RTO 1 s, IW 10, no DCTCP, g = 1/16. */
    public static final TcpSpec LINUX = new TcpSpec(200_000_000_000L, 1_000_000_000_000L, 10, false, 1.0 / 16);
}
