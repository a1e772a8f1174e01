package io.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.v1.DaemonsetsSpec;
import io.gpuoperator.api.v1.DcgmExporterSpec;
import io.gpuoperator.api.v1.DcgmSpec;
import io.gpuoperator.api.v1.HostPathsSpec;

/** The GPUCluster's spec, with the field names of NVIDIA's {@code gpucluster_types.go}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class GPUClusterSpec {
  @JsonPropertyDescription("The DRA driver gpu.nvidia.com: its image, feature gates and plugins.")
  public GPUClusterDraDriverSpec draDriver;

  @JsonPropertyDescription(
      "The DCGM host engine of the DRA stack: accepted for compatibility; this operator does not"
          + " deploy it from a GPUCluster (the IgnoredFields condition says so when enabled).")
  public DcgmSpec dcgm;

  @JsonPropertyDescription(
      "The DCGM exporter of the DRA stack: accepted for compatibility; this operator does not"
          + " deploy it from a GPUCluster (the IgnoredFields condition says so when enabled).")
  public DcgmExporterSpec dcgmExporter;

  @JsonPropertyDescription("Host paths the DRA driver mounts (driverInstallDir, kubeletRootDir).")
  public HostPathsSpec hostPaths;

  @JsonPropertyDescription("Labels, annotations, tolerations, priority class of the DaemonSets.")
  public DaemonsetsSpec daemonsets;
}
