package org.jrdma.conformance;

class IwarpAsyncEventTest extends AsyncEventConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void aBadRkeyRaisesQpAccessErrAtTheResponder() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void anRdmaWriteTheResponderDoesNotEnableRaisesQpReqErr() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw maps SQD to CLOSING (siw_verbs.c ib_qp_state_to_siw_qp_state), which starts a disconnect; there is no SQ_DRAINED. jrdma refuses a user's move to SQD with EINVAL")
    void sqdWithNothingInFlightRaisesSqDrained() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw maps SQD to CLOSING (siw_verbs.c ib_qp_state_to_siw_qp_state), which starts a disconnect; there is no SQ_DRAINED. jrdma refuses a user's move to SQD with EINVAL")
    void destroyWaitsForAcknowledgementsThenSucceedsOrIsBusy() throws Exception {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("siw maps SQD to CLOSING (siw_verbs.c ib_qp_state_to_siw_qp_state), which starts a disconnect; there is no SQ_DRAINED. jrdma refuses a user's move to SQD with EINVAL")
    void theEventsOfADestroyedQpThatWereNotTakenAreDropped() {
    }
}
