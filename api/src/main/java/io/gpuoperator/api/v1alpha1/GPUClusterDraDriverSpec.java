package io.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.gpuoperator.api.common.EnvVar;
import io.gpuoperator.api.common.ImageSpec;
import java.util.List;
import java.util.Map;

/** {@code GPUCluster.spec.draDriver}: the image and settings of the DRA driver gpu.nvidia.com. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class GPUClusterDraDriverSpec extends ImageSpec {
  @JsonPropertyDescription(
      "Feature gates of NVIDIA's DRA driver by name: accepted for compatibility; this operator's"
          + " plugin has none (the IgnoredFields condition lists them).")
  public Map<String, Boolean> featureGates;

  @JsonPropertyDescription("The GPU side of the driver: its kubelet plugin.")
  public Gpus gpus;

  @JsonPropertyDescription(
      "Multi-node NVLink ComputeDomains (IMEX): with enabled, the operator serves ComputeDomain"
          + " resources (resource.nvidia.com/v1beta1) and creates NVIDIA's two ComputeDomain"
          + " DeviceClasses.")
  public ComputeDomains computeDomains;

  /** {@code draDriver.gpus}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Gpus {
    @JsonPropertyDescription("The kubelet plugin DaemonSet that publishes and prepares GPUs.")
    public KubeletPlugin kubeletPlugin;
  }

  /** A plugin or controller container: its env and resources. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Container {
    @JsonPropertyDescription("Environment of the container, merged by name over the operand's own.")
    public List<EnvVar> env;

    @JsonPropertyDescription("CPU and memory requests and limits of the container.")
    public ResourceRequirements resources;
  }

  /** {@code draDriver.gpus.kubeletPlugin}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class KubeletPlugin extends Container {
    @JsonPropertyDescription("The plugin's gRPC health check, probed by the kubelet.")
    public Healthcheck healthcheck;
  }

  /** {@code kubeletPlugin.healthcheck}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Healthcheck {
    @JsonPropertyDescription(
        "Serve a gRPC health check: not served by this operator's plugin (the IgnoredFields"
            + " condition says so when enabled).")
    public Boolean enabled;

    @Min(1)
    @Max(65535)
    @JsonPropertyDescription("Port of the health check on 127.0.0.1 (default 51515).")
    public Integer port;
  }

  /** {@code draDriver.computeDomains}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class ComputeDomains {
    @JsonPropertyDescription(
        "Serve ComputeDomains: the operator's ComputeDomain controller creates each domain's"
            + " channel claim template and IMEX daemon DaemonSet (off by default).")
    public Boolean enabled;

    @JsonPropertyDescription(
        "NVIDIA's controller Deployment: accepted for compatibility; the controller runs inside"
            + " the operator here (the IgnoredFields condition says so when set).")
    public Container controller;

    @JsonPropertyDescription("The ComputeDomain kubelet plugin.")
    public Container kubeletPlugin;
  }
}
