package org.jrdma.soft;

import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
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
        return SoftLimits.deviceAttr().fwVer("test").nodeGuid(1).sysImageGuid(1).build();
    }

    @Override
    public PortAttr queryPort(int portNum) {
        return PortAttr.builder().state(PortState.ACTIVE).maxMtu(Mtu.MTU_4096).activeMtu(Mtu.MTU_4096).gidTblLen(0)
                .pkeyTblLen(SoftLimits.PKEY_TBL_LEN).linkLayer(LinkLayer.ETHERNET).build();
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        throw new VerbsException(Errno.EINVAL, "no GID table");
    }

    @Override
    public GidEntry queryGidEx(int portNum, int gidIndex) {
        throw new VerbsException(Errno.EINVAL, "no GID table");
    }

    @Override
    public int queryGidTable(GidEntry[] entries) {
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
