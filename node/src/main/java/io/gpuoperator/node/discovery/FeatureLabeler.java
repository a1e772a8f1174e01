package io.gpuoperator.node.discovery;

import static io.gpuoperator.node.discovery.GfdLabels.resource;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuFamily;
import io.gpuoperator.node.gpu.MigDevice;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Computes the feature-discovery label set from a {@link GpuSnapshot}: a pure function with the
 * original's rules (versions, machine type, MIG capability and strategy, sharing, per-model GPU
 * labels, MIG labels for the single and mixed strategies, invalid-single labels, GPU mode).
 */
public final class FeatureLabeler {
  private static final Logger LOG = LoggerFactory.getLogger(FeatureLabeler.class);
  private static final int PCI_CLASS_VGA = 0x030000;
  private static final int PCI_CLASS_3D = 0x030200;

  /**
   * What the labels depend on besides the GPUs.
   *
   * @param migStrategy none, single or mixed
   * @param config device-plugin config (sharing); {@link
   *     io.gpuoperator.node.config.DevicePluginConfigs#empty()} when none
   * @param timestamp the pass time, or null for no {@code gfd.timestamp} label
   * @param machineType contents of the DMI product-name file, or null when unreadable
   */
  public record Settings(
      String migStrategy, DevicePluginConfig config, Instant timestamp, String machineType) {}

  /** Raised when the configuration cannot be labelled (e.g. MPS with MIG-enabled GPUs). */
  public static final class LabelingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LabelingException(String message) {
      super(message);
    }
  }

  private FeatureLabeler() {}

  /** The labels, sorted by key. */
  public static SortedMap<String, String> labels(GpuSnapshot snapshot, Settings s) {
    SortedMap<String, String> labels = new TreeMap<>();
    if (s.timestamp() != null) {
      labels.put(GfdLabels.TIMESTAMP, Long.toString(s.timestamp().getEpochSecond()));
    }
    if (snapshot.gpus().isEmpty()) {
      return labels;
    }
    labels.put(
        GfdLabels.MACHINE,
        s.machineType() == null
            ? "unknown"
            : LabelValues.valid(LabelValues.sanitise(s.machineType()), "unknown"));
    labels.putAll(versionLabels(snapshot));
    labels.put(
        GfdLabels.MIG_CAPABLE,
        Boolean.toString(snapshot.gpus().stream().anyMatch(g -> g.device().migCapable())));
    labels.putAll(sharingLabels(snapshot, s.config()));
    labels.putAll(resourceLabels(snapshot, s));
    labels.put(GfdLabels.GPU_MODE, gpuMode(snapshot));
    clique(snapshot).ifPresent(c -> labels.put(GfdLabels.CLIQUE, c));
    return labels;
  }

  /**
   * The GPUs' clique, as GFD's IMEX labeler finds it: from the GPUs attached to a fabric, none when
   * there are none, and none (with a warning, not a failed pass) when they name more than one
   * cluster or clique.
   */
  private static Optional<String> clique(GpuSnapshot snapshot) {
    Set<String> clusters = new TreeSet<>();
    Set<Long> cliques = new TreeSet<>();
    for (GpuSnapshot.Gpu g : snapshot.gpus()) {
      g.fabric()
          .ifPresent(
              f -> {
                clusters.add(f.clusterUuid());
                cliques.add(f.cliqueId());
              });
    }
    if (clusters.size() > 1 || cliques.size() > 1) {
      LOG.warn(
          "GPUs in more than one NVLink fabric (clusters {}, cliques {}): no {} label",
          clusters,
          cliques,
          GfdLabels.CLIQUE);
      return Optional.empty();
    }
    return clusters.isEmpty()
        ? Optional.empty()
        : Optional.of(
            new GpuFabric(clusters.iterator().next(), cliques.iterator().next()).clique());
  }

  private static Map<String, String> versionLabels(GpuSnapshot snapshot) {
    String full = snapshot.driverVersion();
    String[] parts = full.split("\\.");
    String major = parts[0];
    String minor = parts.length > 1 ? parts[1] : "";
    String rev = parts.length > 2 ? parts[2] : "";
    int cuda = snapshot.cudaDriverVersion();
    String cudaMajor = Integer.toString(cuda / 1000);
    String cudaMinor = Integer.toString((cuda % 1000) / 10);
    Map<String, String> l = new LinkedHashMap<>();
    l.put(GfdLabels.CUDA_DRIVER_MAJOR, major);
    l.put(GfdLabels.CUDA_DRIVER_MINOR, minor);
    l.put(GfdLabels.CUDA_DRIVER_REV, rev);
    l.put(GfdLabels.CUDA_DRIVER_VERSION_MAJOR, major);
    l.put(GfdLabels.CUDA_DRIVER_VERSION_MINOR, minor);
    l.put(GfdLabels.CUDA_DRIVER_VERSION_REVISION, rev);
    l.put(GfdLabels.CUDA_DRIVER_VERSION_FULL, full);
    l.put(GfdLabels.CUDA_RUNTIME_MAJOR, cudaMajor);
    l.put(GfdLabels.CUDA_RUNTIME_MINOR, cudaMinor);
    l.put(GfdLabels.CUDA_RUNTIME_VERSION_MAJOR, cudaMajor);
    l.put(GfdLabels.CUDA_RUNTIME_VERSION_MINOR, cudaMinor);
    l.put(GfdLabels.CUDA_RUNTIME_VERSION_FULL, cudaMajor + "." + cudaMinor);
    return l;
  }

  private static Map<String, String> sharingLabels(GpuSnapshot snapshot, DevicePluginConfig c) {
    if (!"mps".equals(c.sharingStrategy())) {
      return Map.of(GfdLabels.MPS_CAPABLE, "false");
    }
    if (snapshot.gpus().stream().anyMatch(GpuSnapshot.Gpu::migEnabled)) {
      throw new LabelingException("MPS sharing is not supported on MIG-enabled GPUs");
    }
    return Map.of(GfdLabels.MPS_CAPABLE, "true");
  }

  private static Map<String, String> resourceLabels(GpuSnapshot snapshot, Settings s) {
    Map<String, String> l = new LinkedHashMap<>();
    l.putAll(fullGpuLabels(snapshot, s.config()));
    switch (s.migStrategy()) {
      case "single" -> {
        l.put(GfdLabels.MIG_STRATEGY, "single");
        l.putAll(migSingleLabels(snapshot, s.config()));
      }
      case "mixed" -> {
        l.put(GfdLabels.MIG_STRATEGY, "mixed");
        l.putAll(migMixedLabels(snapshot, s.config()));
      }
      default -> {
        // none: MIG is ignored; GPUs are labelled as whole GPUs.
      }
    }
    return l;
  }

  /**
   * {@code nvidia.com/gpu.*} per model, counting every GPU of the model. MIG-enabled GPUs are
   * labelled without sharing first; GPUs without MIG (with sharing) then override the same keys.
   */
  private static Map<String, String> fullGpuLabels(GpuSnapshot snapshot, DevicePluginConfig c) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (GpuSnapshot.Gpu g : snapshot.gpus()) {
      counts.merge(g.device().name(), 1, Integer::sum);
    }
    Map<String, String> l = new LinkedHashMap<>();
    for (boolean migPass : new boolean[] {true, false}) {
      for (GpuSnapshot.Gpu g : snapshot.gpus()) {
        if (g.migEnabled() == migPass) {
          GpuDevice d = g.device();
          ResourceLabels r = new ResourceLabels(GfdLabels.GPU_RESOURCE, migPass ? null : c);
          l.putAll(r.product(d.name()));
          l.putAll(r.base(counts.get(d.name())));
          l.put(r.key(GfdLabels.MEMORY), Long.toString(d.memoryTotalMiB()));
          l.put(r.key(GfdLabels.FAMILY), GpuFamily.of(d.computeMajor(), d.computeMinor()));
          l.put(r.key(GfdLabels.COMPUTE_MAJOR), Integer.toString(d.computeMajor()));
          l.put(r.key(GfdLabels.COMPUTE_MINOR), Integer.toString(d.computeMinor()));
        }
      }
    }
    return l;
  }

  private static Map<String, String> migSingleLabels(GpuSnapshot snapshot, DevicePluginConfig c) {
    List<GpuSnapshot.Gpu> enabled =
        snapshot.gpus().stream().filter(GpuSnapshot.Gpu::migEnabled).toList();
    if (enabled.isEmpty()) {
      return Map.of();
    }
    if (enabled.size() != snapshot.gpus().size()) {
      return invalidSingle(enabled.get(0), "devices with MIG enabled and disabled detected");
    }
    Map<String, List<MigDevice>> byProfile = new LinkedHashMap<>();
    for (GpuSnapshot.Gpu g : enabled) {
      if (g.migDevices().isEmpty()) {
        return invalidSingle(
            g, "GPU " + g.device().index() + " has MIG enabled but no MIG devices");
      }
      for (MigDevice m : g.migDevices()) {
        byProfile.computeIfAbsent(m.profile().name(), k -> new ArrayList<>()).add(m);
      }
    }
    if (byProfile.size() > 1) {
      return invalidSingle(
          enabled.get(0), "more than one MIG device type present on node: " + byProfile.keySet());
    }
    List<MigDevice> devices = byProfile.values().iterator().next();
    return migLabels(GfdLabels.GPU_RESOURCE, c, parentName(snapshot, devices.get(0)), devices);
  }

  private static Map<String, String> invalidSingle(GpuSnapshot.Gpu gpu, String reason) {
    LOG.warn("Invalid configuration detected for mig-strategy=single: {}", reason);
    Map<String, String> l = new LinkedHashMap<>();
    l.put(
        resource(GfdLabels.GPU_RESOURCE, GfdLabels.PRODUCT),
        LabelValues.product(gpu.device().name(), "MIG", "INVALID"));
    l.put(resource(GfdLabels.GPU_RESOURCE, GfdLabels.COUNT), "0");
    l.put(resource(GfdLabels.GPU_RESOURCE, GfdLabels.REPLICAS), "0");
    l.put(resource(GfdLabels.GPU_RESOURCE, GfdLabels.SHARING_STRATEGY), "");
    l.put(resource(GfdLabels.GPU_RESOURCE, GfdLabels.MEMORY), "0");
    return l;
  }

  private static Map<String, String> migMixedLabels(GpuSnapshot snapshot, DevicePluginConfig c) {
    Map<String, List<MigDevice>> byProfile = new TreeMap<>();
    for (GpuSnapshot.Gpu g : snapshot.gpus()) {
      for (MigDevice m : g.migDevices()) {
        byProfile.computeIfAbsent(m.profile().name(), k -> new ArrayList<>()).add(m);
      }
    }
    Map<String, String> l = new LinkedHashMap<>();
    for (Map.Entry<String, List<MigDevice>> e : byProfile.entrySet()) {
      MigDevice first = e.getValue().get(0);
      String resourceName = "mig-" + first.profile().resourceSuffix();
      l.putAll(migLabels(resourceName, c, parentName(snapshot, first), e.getValue()));
    }
    return l;
  }

  private static Map<String, String> migLabels(
      String resourceName, DevicePluginConfig c, String parentName, List<MigDevice> devices) {
    MigDevice m = devices.get(0);
    ResourceLabels r = new ResourceLabels(resourceName, c);
    Map<String, String> l = new LinkedHashMap<>();
    l.putAll(r.product(parentName, "MIG", m.profile().name()));
    l.putAll(r.base(devices.size()));
    var a = m.attributes();
    l.put(r.key(GfdLabels.MEMORY), Long.toString(a.memorySizeMb()));
    l.put(r.key(GfdLabels.MULTIPROCESSORS), Integer.toString(a.multiprocessorCount()));
    l.put(r.key(GfdLabels.SLICES_GI), Integer.toString(a.gpuInstanceSliceCount()));
    l.put(r.key(GfdLabels.SLICES_CI), Integer.toString(a.computeInstanceSliceCount()));
    l.put(r.key(GfdLabels.ENGINES_COPY), Integer.toString(a.sharedCopyEngineCount()));
    l.put(r.key(GfdLabels.ENGINES_DECODER), Integer.toString(a.sharedDecoderCount()));
    l.put(r.key(GfdLabels.ENGINES_ENCODER), Integer.toString(a.sharedEncoderCount()));
    l.put(r.key(GfdLabels.ENGINES_JPEG), Integer.toString(a.sharedJpegCount()));
    l.put(r.key(GfdLabels.ENGINES_OFA), Integer.toString(a.sharedOfaCount()));
    return l;
  }

  private static String parentName(GpuSnapshot snapshot, MigDevice m) {
    return snapshot.gpus().get(m.parentIndex()).device().name();
  }

  private static String gpuMode(GpuSnapshot snapshot) {
    String mode = null;
    for (GpuSnapshot.Gpu g : snapshot.gpus()) {
      int cls = g.device().pciClass();
      String m = cls == PCI_CLASS_VGA ? "graphics" : cls == PCI_CLASS_3D ? "compute" : "unknown";
      if (mode != null && !mode.equals(m)) {
        return "unknown";
      }
      mode = m;
    }
    return mode == null ? "unknown" : mode;
  }

  /** Labels of one resource: product (with -SHARED), count, replicas, sharing strategy. */
  private static final class ResourceLabels {
    private final String resource;
    private final int replicas;
    private final boolean renamed;
    private final String strategy;

    /** A null config means sharing is disabled for these devices (MIG-enabled full GPUs). */
    ResourceLabels(String resource, DevicePluginConfig config) {
      this.resource = resource;
      String fullName = GfdLabels.PREFIX + resource;
      this.replicas = config == null ? 1 : config.replicasFor(fullName);
      this.renamed = config != null && config.renamedFor(fullName);
      this.strategy = replicas > 1 ? config.sharingStrategy() : "none";
    }

    String key(String suffix) {
      return resource(resource, suffix);
    }

    Map<String, String> product(String... parts) {
      String p = LabelValues.product(parts);
      if (replicas > 1 && !renamed) {
        p = p + "-SHARED";
      }
      return Map.of(key(GfdLabels.PRODUCT), p);
    }

    Map<String, String> base(int count) {
      Map<String, String> l = new LinkedHashMap<>();
      l.put(key(GfdLabels.COUNT), Integer.toString(count));
      l.put(key(GfdLabels.REPLICAS), Integer.toString(replicas));
      l.put(key(GfdLabels.SHARING_STRATEGY), strategy);
      return l;
    }
  }
}
