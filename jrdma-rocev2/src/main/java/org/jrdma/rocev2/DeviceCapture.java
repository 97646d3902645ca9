package org.jrdma.rocev2;

import java.io.IOException;
import java.nio.file.Path;
import org.jrdma.rocev2.transport.PcapTap;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.PacketCapture;

/**
 * {@link PacketCapture} of an open software RoCE v2 device: drives the device's {@link PcapTap},
 * which sits right above the network (under the fault shim), so a capture shows what went on the
 * wire. Any thread.
 */
final class DeviceCapture implements PacketCapture {
    private final String device;
    private final PcapTap tap;

    DeviceCapture(String device, PcapTap tap) {
        this.device = device;
        this.tap = tap;
    }

    @Override
    public void start(Path file) {
        if (file == null) {
            throw new VerbsException(Errno.EINVAL, "device " + device + ": capture file is null");
        }
        try {
            tap.start(file);
        } catch (IllegalStateException e) {
            throw new VerbsException(Errno.EBUSY, "device " + device + ": a capture is running already");
        } catch (IOException e) {
            throw new VerbsException(Errno.EIO, "device " + device + ": cannot write the capture " + file + ": " + e);
        }
    }

    @Override
    public long stop() {
        return tap.stop();
    }

    @Override
    public boolean capturing() {
        return tap.capturing();
    }

    @Override
    public long frames() {
        return tap.frames();
    }
}
