package org.jrdma.rocev2.pcap;

import java.io.IOException;

/**
 * The input is not a packet capture this package reads (not classic pcap or pcapng, an unsupported
 * version, an impossible block or record length), or a capture ends in the middle of a record. The
 * message is one line, fit to print to a user after the file name.
 */
public final class PcapFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message one line, no trailing period */
    public PcapFormatException(String message) {
        super(message);
    }
}
