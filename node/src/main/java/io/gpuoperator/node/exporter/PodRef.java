package io.gpuoperator.node.exporter;

/**
 * A container holding a device, as the kubelet's pod-resources API reports it.
 *
 * @param pod the pod's name
 * @param namespace the pod's namespace
 * @param container the container's name
 * @param replica the shared replica it holds ({@code <uuid>::<n>} device IDs of time-slicing or
 *     MPS), or null for a device of its own; exported as the {@code vgpu} label like the DCGM
 *     exporter, so each replica's pod gets its own series
 */
public record PodRef(String pod, String namespace, String container, String replica) {}
