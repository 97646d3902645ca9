package org.jrdma.conformance;

class IwarpErrorCompletionTest extends ErrorCompletionConformance {
    @Override
    protected ProviderFixture fixture() {
        return SiwFixture.INSTANCE;
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void receiveBufferTooSmall() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void remoteAccessError(RemoteAccessFault fault) {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void operationNotEnabledOnTheResponderQp(QpAccessFault fault) {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path.")
    void errorFlushesEveryOutstandingWrInOrder() {
    }

    @Override
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Disabled("iWARP (siw): an RDMA WRITE or SEND completes at the requester once handed to TCP (RFC 5040: no responder ACK); a responder-side error is a Terminate that moves both QPs to ERR, so the requester's WR completes SUCCESS and a READ in flight is flushed (siw_sq_flush), not REM_*_ERR. SiwCmLoopbackTest checks the Terminate path. An unsignaled WRITE that was sent has no completion.")
    void unsignaledWrThatFailsStillCompletes() {
    }
}
