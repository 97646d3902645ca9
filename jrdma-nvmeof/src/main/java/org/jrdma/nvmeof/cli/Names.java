package org.jrdma.nvmeof.cli;

/**
 * The names nvme-cli prints for the discovery log's codes (libnvme's {@code nvmf_trtype_str},
 * {@code nvmf_adrfam_str}, {@code nvmf_subtype_str}, {@code nvmf_treq_str}, {@code nvmf_eflags_str},
 * {@code nvmf_prtype_str}, {@code nvmf_qptype_str}, {@code nvmf_cms_str}; values NVMe-oF 1.1 Figure 41).
 */
final class Names {
    private Names() {
    }

    static String trtype(int v) {
        return switch (v) {
            case 1 -> "rdma";
            case 2 -> "fc";
            case 3 -> "tcp";
            case 254 -> "loop";
            default -> "unrecognized";
        };
    }

    static String adrfam(int v) {
        return switch (v) {
            case 0 -> "pci";
            case 1 -> "ipv4";
            case 2 -> "ipv6";
            case 3 -> "infiniband";
            case 4 -> "fibre-channel";
            case 254 -> "loop";
            default -> "unrecognized";
        };
    }

    static String subtype(int v) {
        return switch (v) {
            case 1 -> "discovery subsystem referral";
            case 2 -> "nvme subsystem";
            case 3 -> "current discovery subsystem";
            default -> "unrecognized";
        };
    }

    static String treq(int v) {
        String s = switch (v & 3) {
            case 0 -> "not specified";
            case 1 -> "required";
            case 2 -> "not required";
            default -> "reserved";
        };
        return (v & 4) != 0 ? s + ", sq flow control disable supported" : s;
    }

    static String eflags(int v) {
        return switch (v & 3) {
            case 0 -> "none";
            case 1 -> "explicit discovery connections";
            case 2 -> "duplicate discovery information";
            default -> "explicit discovery connections, duplicate discovery information";
        };
    }

    static String prtype(int v) {
        return switch (v) {
            case 1 -> "not specified";
            case 2 -> "infiniband";
            case 3 -> "roce";
            case 4 -> "roce-v2";
            case 5 -> "iwarp";
            default -> "unrecognized";
        };
    }

    static String qptype(int v) {
        return switch (v) {
            case 1 -> "connected";
            case 2 -> "datagram";
            default -> "unrecognized";
        };
    }

    static String cms(int v) {
        return v == 1 ? "rdma-cm" : "unrecognized";
    }
}
