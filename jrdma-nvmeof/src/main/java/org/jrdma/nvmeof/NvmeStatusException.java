package org.jrdma.nvmeof;

/**
 * A command the controller completed with a status other than success (NVMe Base 2.0 §4.2.3, Figure 92:
 * status code type SCT, status code SC, do not retry DNR; Figure 94 the generic codes, Figure 95-96 the
 * command specific ones). The transport is fine: the queue stays usable.
 */
public final class NvmeStatusException extends NvmeException {
    private static final long serialVersionUID = 1L;
    private final int opcode;
    private final int status;

    /**
     * @param command what was submitted, for the message
     * @param opcode the command's opcode
     * @param status the CQE's status without the phase tag ({@code cqe.status >> 1}: SC 7:0, SCT 10:8, DNR 14)
     */
    public NvmeStatusException(String command, int opcode, int status) {
        super(command + " failed: " + describe(status));
        this.opcode = opcode;
        this.status = status;
    }

    public int opcode() {
        return opcode;
    }

    /** The status without the phase tag (as Linux's {@code nvme_req(req)->status}). */
    public int status() {
        return status;
    }

    /** Status code type. */
    public int sct() {
        return status >>> 8 & 7;
    }

    /** Status code. */
    public int sc() {
        return status & 0xff;
    }

    /** Do not retry. */
    public boolean dnr() {
        return (status & 1 << 14) != 0;
    }

    /** "SCT 0h SC 02h Invalid Field in Command (DNR)" and the like; the names of NVMe Base 2.0 Figure 94, NVMe-oF 1.1 Figure 18. */
    public static String describe(int status) {
        int sct = status >>> 8 & 7;
        int sc = status & 0xff;
        String name = switch (sct << 8 | sc) {
            case 0x001 -> "Invalid Command Opcode";
            case 0x002 -> "Invalid Field in Command";
            case 0x003 -> "Command ID Conflict";
            case 0x004 -> "Data Transfer Error";
            case 0x006 -> "Internal Error";
            case 0x007 -> "Command Abort Requested";
            case 0x00b -> "Invalid Namespace or Format";
            case 0x00d -> "Invalid SGL Segment Descriptor";
            case 0x00f -> "Data SGL Length Invalid";
            case 0x011 -> "SGL Descriptor Type Invalid";
            case 0x016 -> "SGL Offset Invalid";
            case 0x080 -> "LBA Out of Range";
            case 0x081 -> "Capacity Exceeded";
            case 0x082 -> "Namespace Not Ready";
            case 0x180 -> "Incompatible Format (Connect)";
            case 0x181 -> "Controller Busy (Connect)";
            case 0x182 -> "Connect Invalid Parameters";
            case 0x183 -> "Connect Restart Discovery";
            case 0x184 -> "Connect Invalid Host";
            default -> "unknown";
        };
        return String.format("SCT %Xh SC %02Xh %s%s", sct, sc, name, (status & 1 << 14) != 0 ? " (DNR)" : "");
    }
}
