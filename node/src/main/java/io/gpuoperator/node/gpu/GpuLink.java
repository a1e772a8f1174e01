package io.gpuoperator.node.gpu;

/**
 * How two GPUs are connected; the device plugin's NVLink-aware allocator scores pairs with it.
 *
 * @param gpuA one GPU's index
 * @param gpuB the other GPU's index
 * @param pcie the closest common PCIe ancestor
 * @param nvLinks active NVLinks between the two (directly or through NVSwitch), 0 for none
 */
public record GpuLink(int gpuA, int gpuB, TopologyLevel pcie, int nvLinks) {}
