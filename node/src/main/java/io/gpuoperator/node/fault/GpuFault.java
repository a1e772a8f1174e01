package io.gpuoperator.node.fault;

/**
 * One sign of a fault on one GPU.
 *
 * @param faultClass the class (one Node condition type)
 * @param gpuUuid the GPU's UUID
 * @param xid the XID that reported it, or 0
 * @param reason a CamelCase reason for the condition, e.g. {@code FallenOffTheBus}
 * @param detail what was seen, for the condition message
 */
public record GpuFault(
    FaultClass faultClass, String gpuUuid, long xid, String reason, String detail) {}
