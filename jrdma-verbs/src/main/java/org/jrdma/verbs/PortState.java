package org.jrdma.verbs;

/** Logical port state, {@code enum ibv_port_state} (ordinal = libibverbs value). */
public enum PortState {
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER
}
