package org.jrdma.fabric.scenario;

/**
 * A full-duplex link between two nodes.
 *
 * @param a       one end (a node name)
 * @param b       the other end
 * @param rateBps the rate of each direction in bit/s (&gt; 0)
 * @param delayPs the propagation delay in ps (&ge; 0)
 * @param loss    the probability that a frame is lost on arrival, per direction, in [0, 1)
 * @param line    the scenario line that declared it
 * @param dropEvery drop, on arrival, each data frame whose sender's 16-bit IP ID is ≡ −1 mod this (Guo et al.
 *                SIGCOMM 2016 §4: a switch dropped IP IDs ending in 0xff, 1 in 256); 0: none
 */
public record LinkSpec(String a, String b, long rateBps, long delayPs, double loss, int line, int dropEvery) {
}
