package org.jrdma.verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code enum ibv_device_cap_flags} ({@code ibv_query_device(3)}; rdma-core
 * {@code libibverbs/verbs.h}): the bits of {@link DeviceAttr#deviceCapFlags()}, with the names
 * {@code ibv_devinfo -v} prints for them.
 */
public final class DeviceCapFlags {
    /** QP and SRQ work request counts can be resized. */
    public static final int RESIZE_MAX_WR = 1;
    /** The device counts packets with a bad P_Key. */
    public static final int BAD_PKEY_CNTR = 1 << 1;
    /** The device counts packets with a bad Q_Key. */
    public static final int BAD_QKEY_CNTR = 1 << 2;
    /** Raw packet multicast. */
    public static final int RAW_MULTI = 1 << 3;
    /** Automatic path migration (APM). */
    public static final int AUTO_PATH_MIG = 1 << 4;
    /** A QP's port can change in SQD → SQD and SQD → RTS. */
    public static final int CHANGE_PHY_PORT = 1 << 5;
    /** The port of a UD address handle is enforced. */
    public static final int UD_AV_PORT_ENFORCE = 1 << 6;
    /** The current QP state may be given in modify_qp. */
    public static final int CURR_QP_STATE_MOD = 1 << 7;
    /** Ports can be shut down. */
    public static final int SHUTDOWN_PORT = 1 << 8;
    /** InitType and InitTypeReply. */
    public static final int INIT_TYPE = 1 << 9;
    /** The port-active asynchronous event. */
    public static final int PORT_ACTIVE_EVENT = 1 << 10;
    /** The device reports a system image GUID. */
    public static final int SYS_IMAGE_GUID = 1 << 11;
    /** The responder generates RNR NAKs. */
    public static final int RC_RNR_NAK_GEN = 1 << 12;
    /** SRQs can be resized. */
    public static final int SRQ_RESIZE = 1 << 13;
    /** Completion notification for N completions. */
    public static final int N_NOTIFY_CQ = 1 << 14;
    /** Memory windows. */
    public static final int MEM_WINDOW = 1 << 17;
    /** UD IP checksum offload. */
    public static final int UD_IP_CSUM = 1 << 18;
    /** XRC. */
    public static final int XRC = 1 << 20;
    /** Memory management extensions (local invalidate, fast registration). */
    public static final int MEM_MGT_EXTENSIONS = 1 << 21;
    /** Type 2A memory windows. */
    public static final int MEM_WINDOW_TYPE_2A = 1 << 23;
    /** Type 2B memory windows. */
    public static final int MEM_WINDOW_TYPE_2B = 1 << 24;
    /** RC IP checksum offload. */
    public static final int RC_IP_CSUM = 1 << 25;
    /** Raw IP checksum offload. */
    public static final int RAW_IP_CSUM = 1 << 26;
    /** Managed flow steering. */
    public static final int MANAGED_FLOW_STEERING = 1 << 29;

    private static final int[] BITS = {RESIZE_MAX_WR, BAD_PKEY_CNTR, BAD_QKEY_CNTR, RAW_MULTI, AUTO_PATH_MIG,
        CHANGE_PHY_PORT, UD_AV_PORT_ENFORCE, CURR_QP_STATE_MOD, SHUTDOWN_PORT, INIT_TYPE, PORT_ACTIVE_EVENT,
        SYS_IMAGE_GUID, RC_RNR_NAK_GEN, SRQ_RESIZE, N_NOTIFY_CQ, MEM_WINDOW, UD_IP_CSUM, XRC, MEM_MGT_EXTENSIONS,
        MEM_WINDOW_TYPE_2A, MEM_WINDOW_TYPE_2B, RC_IP_CSUM, RAW_IP_CSUM, MANAGED_FLOW_STEERING};
    private static final String[] NAMES = {"RESIZE_MAX_WR", "BAD_PKEY_CNTR", "BAD_QKEY_CNTR", "RAW_MULTI",
        "AUTO_PATH_MIG", "CHANGE_PHY_PORT", "UD_AV_PORT_ENFORCE", "CURR_QP_STATE_MOD", "SHUTDOWN_PORT", "INIT_TYPE",
        "PORT_ACTIVE_EVENT", "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN", "SRQ_RESIZE", "N_NOTIFY_CQ", "MEM_WINDOW",
        "UD_IP_CSUM", "XRC", "MEM_MGT_EXTENSIONS", "MEM_WINDOW_TYPE_2A", "MEM_WINDOW_TYPE_2B", "RC_IP_CSUM",
        "RAW_IP_CSUM", "MANAGED_FLOW_STEERING"};
    /** Every bit with a name. */
    public static final int KNOWN;

    static {
        int k = 0;
        for (int b : BITS) {
            k |= b;
        }
        KNOWN = k;
    }

    private DeviceCapFlags() {
    }

    /** The names of the known bits set in {@code flags}, lowest bit first (as ibv_devinfo lists them). */
    public static List<String> names(int flags) {
        List<String> n = new ArrayList<>();
        for (int i = 0; i < BITS.length; i++) {
            if ((flags & BITS[i]) != 0) {
                n.add(NAMES[i]);
            }
        }
        return n;
    }
}
