package io.gpuoperator.node.gpu;

/**
 * The multi-node NVLink fabric a GPU is attached to (NVML's {@code nvmlGpuFabricInfo_t} once the
 * fabric manager registered it): the cluster UUID of the NVLink domain and the clique within it.
 * GPUs of one clique share memory across nodes through IMEX.
 *
 * @param clusterUuid the NVLink domain's cluster UUID, e.g. {@code 5c8a1d3e-...}
 * @param cliqueId the clique within that domain
 */
public record GpuFabric(String clusterUuid, long cliqueId) {
  /**
   * The node label that carries {@link #clique()}: written by feature discovery (GFD's IMEX
   * labeler) and by the DRA plugin's compute-domain side, which both own no other's facts.
   */
  public static final String LABEL = "nvidia.com/gpu.clique";

  public GpuFabric {
    if (clusterUuid == null || clusterUuid.isBlank()) {
      throw new IllegalArgumentException("clusterUuid: required");
    }
    if (cliqueId < 0) {
      throw new IllegalArgumentException("cliqueId: expected >= 0, got " + cliqueId);
    }
  }

  /**
   * The clique as NVIDIA's DRA driver and GPU feature discovery write it ({@code
   * nvidia.com/gpu.clique}, a ComputeDomain node's {@code cliqueID}): {@code <cluster uuid>.<clique
   * id>}.
   */
  public String clique() {
    return clusterUuid + "." + cliqueId;
  }
}
