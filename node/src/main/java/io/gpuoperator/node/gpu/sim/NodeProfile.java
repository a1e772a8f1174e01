package io.gpuoperator.node.gpu.sim;

import static io.gpuoperator.node.gpu.sim.HardwareProfile.range;
import static io.gpuoperator.node.gpu.sim.HardwareProfile.require;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.gpuoperator.node.gpu.MigProfile;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated node's hardware: which GPUs, how many, the driver it runs, and optionally an initial
 * MIG layout. Read from YAML:
 *
 * <pre>
 * machineType: DGX H100
 * driverVersion: 550.54.15
 * cudaVersion: "12.4"
 * seed: 7
 * numaNodes: 2
 * nvlink: all            # all (NVSwitch, every pair) | none
 * gpus:
 *   - model: H100-SXM5-80GB      # built-in model, or a hardware-profile file next to this one
 *     count: 8
 *     mig: {enabled: true, devices: {1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1}}
 * </pre>
 *
 * @param machineType what {@code /sys/class/dmi/id/product_name} would say
 * @param driverVersion kernel driver version, e.g. {@code 550.54.15}
 * @param cudaVersion CUDA version the driver supports, e.g. {@code 12.4}
 * @param seed telemetry and UUID seed (0 when absent)
 * @param numaNodes NUMA nodes the GPUs are spread over (1 when absent)
 * @param nvlink {@code all} or {@code none} (default {@code all} when the GPUs have NVLinks)
 * @param gpus GPU groups, in index order
 */
public record NodeProfile(
    String machineType,
    String driverVersion,
    String cudaVersion,
    Long seed,
    Integer numaNodes,
    String nvlink,
    List<GpuGroup> gpus) {

  public NodeProfile {
    require(
        driverVersion != null && driverVersion.matches("\\d+\\.\\d+(\\.\\d+)?"),
        "driverVersion: expected <major>.<minor>[.<patch>] like 550.54.15, got " + driverVersion);
    require(
        cudaVersion != null && cudaVersion.matches("\\d+\\.\\d"),
        "cudaVersion: expected <major>.<minor> like 12.4, got " + cudaVersion);
    require(gpus != null, "gpus: required (use [] for a node without GPUs)");
    if (numaNodes != null) {
      range(numaNodes, 1, 8, "numaNodes");
    }
    require(
        nvlink == null || nvlink.equals("all") || nvlink.equals("none"),
        "nvlink: expected all or none, got " + nvlink);
    machineType = machineType == null ? "unknown" : machineType;
    seed = seed == null ? 0L : seed;
    numaNodes = numaNodes == null ? 1 : numaNodes;
    nvlink = nvlink == null ? "all" : nvlink;
    gpus = List.copyOf(gpus);
    long total = gpus.stream().mapToLong(GpuGroup::count).sum();
    require(total <= MAX_GPUS, "gpus: at most " + MAX_GPUS + " GPUs per node, got " + total);
  }

  /** GPUs one node may have (the largest machines have 16). */
  public static final int MAX_GPUS = 16;

  /** NVML's encoding of the CUDA version: 12.4 is 12040. */
  public int cudaDriverVersion() {
    String[] parts = cudaVersion.split("\\.");
    return Integer.parseInt(parts[0]) * 1000 + Integer.parseInt(parts[1]) * 10;
  }

  /** Number of GPUs on the node. */
  public int gpuCount() {
    return gpus.stream().mapToInt(GpuGroup::count).sum();
  }

  /**
   * GPUs of one model.
   *
   * @param model the hardware profile
   * @param count how many
   * @param mig MIG state at start, absent for MIG disabled
   */
  public record GpuGroup(
      @JsonDeserialize(using = HardwareProfiles.ModelDeserializer.class) HardwareProfile model,
      int count,
      MigLayout mig) {
    public GpuGroup {
      require(model != null, "model: required");
      range(count, 1, MAX_GPUS, "count");
      if (mig != null && mig.enabled()) {
        require(model.migCapable(), "mig: " + model.model() + " is not MIG-capable");
        for (String p : mig.devices().keySet()) {
          boolean known =
              model.mig().gpuInstanceProfiles().stream().anyMatch(g -> g.name().equals(p));
          require(known, "mig.devices: " + model.model() + " has no MIG profile " + p);
        }
      }
    }
  }

  /**
   * The MIG state a GPU starts in.
   *
   * @param enabled MIG mode
   * @param devices profile name → count, each a GPU instance with one full compute instance
   */
  public record MigLayout(boolean enabled, Map<String, Integer> devices) {
    public MigLayout {
      devices = devices == null ? Map.of() : new LinkedHashMap<>(devices);
      for (Map.Entry<String, Integer> e : devices.entrySet()) {
        MigProfile.parse(e.getKey());
        require(e.getValue() != null, "devices." + e.getKey() + ": required, a count");
        range(e.getValue(), 0, 7, "devices." + e.getKey());
      }
      require(enabled || devices.isEmpty(), "devices: MIG devices need enabled: true");
    }
  }
}
