package org.jrdma.fabric.scenario;

/**
 * A node of the topology.
 *
 * @param name     its unique name
 * @param isSwitch true for a switch, false for a host (a NIC with one port)
 * @param line     the scenario line that declared it
 */
public record NodeSpec(String name, boolean isSwitch, int line) {
}
