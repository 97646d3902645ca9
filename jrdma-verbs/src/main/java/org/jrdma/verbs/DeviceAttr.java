package org.jrdma.verbs;

/**
 * Device attributes, the fields of {@code struct ibv_device_attr} that jrdma reports
 * ({@code ibv_query_device(3)}).
 *
 * @param fwVer firmware version text
 * @param nodeGuid node GUID (64 bits, host order)
 * @param vendorId IEEE vendor id (24 bits; 0xFFFFFF for software devices, as rdma_rxe)
 * @param vendorPartId vendor part id
 * @param maxMrSize largest memory region, bytes
 * @param maxQp number of QPs
 * @param maxQpWr work requests per queue
 * @param maxSge scatter/gather entries per work request
 * @param maxCq number of CQs
 * @param maxCqe entries per CQ
 * @param maxMr number of memory regions
 * @param maxPd number of protection domains
 * @param maxQpRdAtom outstanding RDMA READ/atomic operations a QP may target at it
 * @param maxQpInitRdAtom outstanding RDMA READ/atomic operations a QP may initiate
 * @param maxInlineData inline bytes per send WR
 */
public record DeviceAttr(String fwVer, long nodeGuid, int vendorId, int vendorPartId, long maxMrSize,
                         int maxQp, int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, int maxPd,
                         int maxQpRdAtom, int maxQpInitRdAtom, int maxInlineData) {
}
