package org.jrdma.fabric.sim;

/** The receiver of an event: a network element, told its event kind and payload. */
@FunctionalInterface
public interface EventHandler {
    /**
     * Runs an event at the simulator's current time.
     *
     * @param kind    the handler's own event code
     * @param payload the object given to {@link EventQueue#schedule}, or null
     */
    void onEvent(int kind, Object payload);
}
