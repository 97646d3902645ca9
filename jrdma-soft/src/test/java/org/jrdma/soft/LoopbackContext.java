package org.jrdma.soft;

import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.VerbsException;

/** A software device whose QPs use {@link LoopbackTransport}: the soft core with a second transport. */
final class LoopbackContext extends SoftContext {
    LoopbackContext() {
        super(new SoftResources());
    }

    @Override
    public Device device() {
        return null;
    }

    @Override
    public DeviceAttr queryDevice() {
        return new DeviceAttr("test", 1, 0, 0, SoftLimits.MAX_MR_SIZE, SoftLimits.MAX_QP, SoftLimits.MAX_QP_WR,
                SoftLimits.MAX_SGE, SoftLimits.MAX_CQ, SoftLimits.MAX_CQE, SoftLimits.MAX_MR, SoftLimits.MAX_PD,
                SoftLimits.MAX_QP_RD_ATOM, SoftLimits.MAX_QP_RD_ATOM, SoftLimits.MAX_INLINE_DATA);
    }

    @Override
    public PortAttr queryPort(int portNum) {
        return new PortAttr(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_4096, 1, 0, LinkLayer.ETHERNET, 10);
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        throw new VerbsException(Errno.EINVAL, "no GID table");
    }

    @Override
    protected SoftQp newQp(SoftPd pd, QpInitAttr attr, int qpn) {
        return LoopbackTransport.create(pd, attr, qpn);
    }

    @Override
    protected void checkAhAttr(AhAttr attr) {
    }

    @Override
    protected void onClose() {
    }
}
