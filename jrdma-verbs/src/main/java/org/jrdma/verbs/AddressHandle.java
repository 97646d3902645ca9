package org.jrdma.verbs;

/** An address handle, {@code struct ibv_ah} ({@code ibv_create_ah(3)}): where a UD send goes. */
public interface AddressHandle extends AutoCloseable {
    /** A copy of the address vector it was created from. */
    AhAttr attr();

    /** {@code ibv_destroy_ah(3)}. */
    @Override
    void close();
}
