package org.jrdma.verbs;

import java.util.Objects;

/**
 * One GID table entry, {@code struct ibv_gid_entry} ({@code ibv_query_gid_ex(3)},
 * {@code ibv_query_gid_table(3)}). Immutable.
 *
 * @param gid the GID
 * @param gidIndex its index in the port's GID table
 * @param portNum the port it belongs to (1..)
 * @param gidType its type ({@link GidType#ROCE_V2} on jrdma's software RoCE devices)
 * @param ndevIfindex interface index of the net device of the GID, 0 when there is none (jrdma's
 *                    software devices bind an address, not a device: 0)
 */
public record GidEntry(Gid gid, int gidIndex, int portNum, GidType gidType, int ndevIfindex) {
    /** The GID and its type are required. */
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(gidType, "gidType");
    }
}
