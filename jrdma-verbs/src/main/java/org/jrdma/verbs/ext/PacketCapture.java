package org.jrdma.verbs.ext;

import java.nio.file.Path;

/**
 * Packet capture of a device, started and stopped at run time: every packet the device sends and
 * receives in this process, written to a file that Wireshark and tshark read (a software RoCE v2
 * device writes classic pcap, link type Ethernet, with the IP and UDP headers as they went on the
 * wire where it can know them). Reached through {@link org.jrdma.verbs.Context#extension(Class)};
 * one capture per device, shared by all its contexts. A provider that cannot see its packets (a
 * hardware RNIC) does not offer it. The software RoCE v2 provider also starts one at open time
 * when {@code -Djrdma.pcap=FILE} (or {@code -Djrdma.pcap.DEVICE=FILE}) is set.
 *
 * <p>Any thread. A write error stops the capture (the traffic is never disturbed);
 * {@link #capturing()} then says false.
 */
public interface PacketCapture {
    /**
     * Starts writing to {@code file} (created or truncated).
     *
     * @throws org.jrdma.verbs.VerbsException EBUSY when a capture is running, EIO when the file
     *         cannot be written
     */
    void start(Path file);

    /**
     * Stops the capture and closes its file; nothing happens when none runs.
     *
     * @return the frames written to the file (0 when none ran)
     */
    long stop();

    /** Whether a capture is running. */
    boolean capturing();

    /** The frames written so far by the running capture (0 when none runs). */
    long frames();
}
