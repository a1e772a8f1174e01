package io.gpuoperator.node.discovery;

import io.gpuoperator.node.gpu.GpuFabric;

/** Node label keys and values feature discovery writes, as NVIDIA's GPU feature discovery does. */
public final class GfdLabels {
  public static final String PREFIX = "nvidia.com/";
  public static final String TIMESTAMP = PREFIX + "gfd.timestamp";
  public static final String MACHINE = PREFIX + "gpu.machine";
  public static final String MIG_CAPABLE = PREFIX + "mig.capable";
  public static final String MIG_STRATEGY = PREFIX + "mig.strategy";
  public static final String MPS_CAPABLE = PREFIX + "mps.capable";
  public static final String GPU_MODE = PREFIX + "gpu.mode";

  /**
   * The GPUs' multi-node NVLink clique, {@code <cluster uuid>.<clique id>} (GFD's IMEX labeler;
   * what ComputeDomains report as a node's {@code cliqueID}).
   */
  public static final String CLIQUE = GpuFabric.LABEL;

  public static final String CUDA_DRIVER_MAJOR = PREFIX + "cuda.driver.major";
  public static final String CUDA_DRIVER_MINOR = PREFIX + "cuda.driver.minor";
  public static final String CUDA_DRIVER_REV = PREFIX + "cuda.driver.rev";
  public static final String CUDA_DRIVER_VERSION_MAJOR = PREFIX + "cuda.driver-version.major";
  public static final String CUDA_DRIVER_VERSION_MINOR = PREFIX + "cuda.driver-version.minor";
  public static final String CUDA_DRIVER_VERSION_REVISION = PREFIX + "cuda.driver-version.revision";
  public static final String CUDA_DRIVER_VERSION_FULL = PREFIX + "cuda.driver-version.full";
  public static final String CUDA_RUNTIME_MAJOR = PREFIX + "cuda.runtime.major";
  public static final String CUDA_RUNTIME_MINOR = PREFIX + "cuda.runtime.minor";
  public static final String CUDA_RUNTIME_VERSION_MAJOR = PREFIX + "cuda.runtime-version.major";
  public static final String CUDA_RUNTIME_VERSION_MINOR = PREFIX + "cuda.runtime-version.minor";
  public static final String CUDA_RUNTIME_VERSION_FULL = PREFIX + "cuda.runtime-version.full";

  /** Resource-label suffixes: {@code nvidia.com/<resource>.<suffix>}. */
  public static final String PRODUCT = "product";

  public static final String COUNT = "count";
  public static final String REPLICAS = "replicas";
  public static final String SHARING_STRATEGY = "sharing-strategy";
  public static final String MEMORY = "memory";
  public static final String FAMILY = "family";
  public static final String COMPUTE_MAJOR = "compute.major";
  public static final String COMPUTE_MINOR = "compute.minor";
  public static final String MULTIPROCESSORS = "multiprocessors";
  public static final String SLICES_GI = "slices.gi";
  public static final String SLICES_CI = "slices.ci";
  public static final String ENGINES_COPY = "engines.copy";
  public static final String ENGINES_DECODER = "engines.decoder";
  public static final String ENGINES_ENCODER = "engines.encoder";
  public static final String ENGINES_JPEG = "engines.jpeg";
  public static final String ENGINES_OFA = "engines.ofa";

  /** The full-GPU resource ({@code nvidia.com/gpu.*} labels). */
  public static final String GPU_RESOURCE = "gpu";

  /**
   * Annotation listing the label keys this agent wrote on the Node, so that after a restart it
   * removes only its own labels that are no longer wanted.
   */
  public static final String MANAGED_LABELS_ANNOTATION = PREFIX + "gfd.managed-labels";

  private GfdLabels() {}

  /** {@code nvidia.com/<resource>.<suffix>}. */
  public static String resource(String resource, String suffix) {
    return PREFIX + resource + "." + suffix;
  }
}
