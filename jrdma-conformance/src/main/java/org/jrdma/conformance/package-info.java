/**
 * The verbs conformance suite. Each abstract {@code *Conformance} class holds behaviour tests
 * written once against {@code org.jrdma.verbs}; a provider runs them unchanged by subclassing each
 * in its tests and returning its {@link org.jrdma.conformance.ProviderFixture}:
 *
 * <pre>{@code
 * class MyOperationsTest extends OperationsConformance {
 *     protected ProviderFixture fixture() { return MyFixture.INSTANCE; }
 * }
 * }</pre>
 *
 * Expected statuses and errnos are those of libibverbs and Linux rdma_rxe (man pages
 * {@code ibv_post_send(3)}, {@code ibv_poll_cq(3)}, {@code ibv_modify_qp(3)}; IBTA Vol 1 §9.7, §10, §11).
 */
package org.jrdma.conformance;
