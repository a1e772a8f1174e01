package io.gpuoperator.sim.kubelet;

import java.util.List;
import java.util.Map;

/**
 * What a simulated node looks like: its hardware profile (GPU model and count; none for a CPU-only
 * node), OS and kernel, capacity, extra labels, and per-node behaviour overrides.
 *
 * @param profile hardware profile name, e.g. H100-SXM5-80GB; null for a node without GPUs
 * @param gpus number of GPUs (0 without a profile)
 * @param mig the MIG devices each GPU starts with, by profile (e.g. {@code 1g.10gb: 2}); empty for
 *     MIG disabled
 * @param nfd whether the node carries Node Feature Discovery's labels (PCI, OS, kernel), as where
 *     NFD runs; false for a cluster without NFD
 */
public record NodeDescription(
    String name,
    String profile,
    int gpus,
    String osId,
    String osVersionId,
    String kernel,
    String cpu,
    String memory,
    int maxPods,
    String containerRuntimeVersion,
    Map<String, String> labels,
    List<BehaviourOverride> overrides,
    Map<String, Integer> mig,
    boolean nfd) {

  public static final String DEFAULT_OS_ID = "ubuntu";
  public static final String DEFAULT_OS_VERSION = "22.04";
  public static final String DEFAULT_KERNEL = "5.15.0-105-generic";
  public static final String DEFAULT_RUNTIME = "containerd://1.7.24";

  public NodeDescription {
    if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
      throw new IllegalArgumentException(
          "node name '" + name + "' is not a valid DNS subdomain (lowercase, digits, - and .)");
    }
    if (gpus < 0) {
      throw new IllegalArgumentException("node " + name + ": gpus must be >= 0, got " + gpus);
    }
    if (profile == null && gpus > 0) {
      throw new IllegalArgumentException("node " + name + ": gpus set but no GPU profile");
    }
    osId = osId == null ? DEFAULT_OS_ID : osId;
    osVersionId = osVersionId == null ? DEFAULT_OS_VERSION : osVersionId;
    kernel = kernel == null ? DEFAULT_KERNEL : kernel;
    cpu = cpu == null ? "32" : cpu;
    memory = memory == null ? "256Gi" : memory;
    maxPods = maxPods <= 0 ? 110 : maxPods;
    containerRuntimeVersion =
        containerRuntimeVersion == null ? DEFAULT_RUNTIME : containerRuntimeVersion;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    overrides = overrides == null ? List.of() : List.copyOf(overrides);
    mig = mig == null ? Map.of() : Map.copyOf(mig);
    if (!mig.isEmpty() && profile == null) {
      throw new IllegalArgumentException("node " + name + ": mig set but no GPU profile");
    }
  }

  /** A GPU node with defaults for everything else. */
  public static NodeDescription gpuNode(String name, String profile, int gpus) {
    return new NodeDescription(
        name, profile, gpus, null, null, null, null, null, 0, null, null, null, null, true);
  }

  /** A node without GPUs. */
  public static NodeDescription cpuNode(String name) {
    return new NodeDescription(
        name, null, 0, null, null, null, null, null, 0, null, null, null, null, true);
  }

  public boolean hasGpus() {
    return gpus > 0;
  }

  public NodeDescription withOverrides(List<BehaviourOverride> list) {
    Parts p = new Parts(this);
    p.overrides = list;
    return p.build();
  }

  /** This node with its GPUs starting in MIG mode with these devices each (profile: count). */
  public NodeDescription withMig(Map<String, Integer> devices) {
    Parts p = new Parts(this);
    p.mig = devices;
    return p.build();
  }

  /** This node with or without NFD's labels. */
  public NodeDescription withNfd(boolean labels) {
    Parts p = new Parts(this);
    p.nfd = labels;
    return p.build();
  }

  /** This node running another OS (os-release ID and VERSION_ID) and kernel. */
  public NodeDescription withOs(String id, String versionId, String kernelRelease) {
    Parts p = new Parts(this);
    p.osId = id;
    p.osVersionId = versionId;
    p.kernel = kernelRelease;
    return p.build();
  }

  /** This node with these extra labels (instead of any it had). */
  public NodeDescription withLabels(Map<String, String> extra) {
    Parts p = new Parts(this);
    p.labels = extra;
    return p.build();
  }

  /** The fields of a copy that differs only in what a cluster file or test varies per node. */
  private static final class Parts {
    private final NodeDescription from;
    private String osId;
    private String osVersionId;
    private String kernel;
    private Map<String, String> labels;
    private List<BehaviourOverride> overrides;
    private Map<String, Integer> mig;
    private boolean nfd;

    Parts(NodeDescription from) {
      this.from = from;
      this.osId = from.osId;
      this.osVersionId = from.osVersionId;
      this.kernel = from.kernel;
      this.labels = from.labels;
      this.overrides = from.overrides;
      this.mig = from.mig;
      this.nfd = from.nfd;
    }

    NodeDescription build() {
      return new NodeDescription(
          from.name,
          from.profile,
          from.gpus,
          osId,
          osVersionId,
          kernel,
          from.cpu,
          from.memory,
          from.maxPods,
          from.containerRuntimeVersion,
          labels,
          overrides,
          mig,
          nfd);
    }
  }
}
