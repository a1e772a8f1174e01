package io.gpuoperator.node.config;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.List;
import java.util.Set;

/**
 * The device-plugin configuration file ({@code version: v1}), shared by the device plugin and
 * feature discovery, field for field as NVIDIA's ({@code api/config/v1}). Values left out are null
 * here; {@link DevicePluginConfigs#withDefaults} fills the original's defaults.
 *
 * @param version must be {@code v1}
 * @param flags agent flags
 * @param resources resource naming (parsed, but renaming is disabled as in the original)
 * @param sharing time-slicing and MPS replicas
 * @param imex IMEX channels
 */
public record DevicePluginConfig(
    String version, Flags flags, Resources resources, Sharing sharing, Imex imex) {

  /** The only supported version. */
  public static final String VERSION = "v1";

  static final Set<String> DISCOVERY_STRATEGIES = Set.of("auto", "nvml", "tegra");

  /** Most replicas one device may be shared as (each becomes a device the kubelet tracks). */
  public static final int MAX_REPLICAS = 1024;

  /** The sharing strategy labels and the plugin use: MPS wins over time-slicing. */
  public String sharingStrategy() {
    if (sharing != null && sharing.mps() != null && sharing.mps().hasReplicas()) {
      return "mps";
    }
    if (sharing != null && sharing.timeSlicing() != null && sharing.timeSlicing().hasReplicas()) {
      return "time-slicing";
    }
    return "none";
  }

  /** The active replicated-resources section (MPS or time-slicing), or null when unshared. */
  public ReplicatedResources activeSharing() {
    return switch (sharingStrategy()) {
      case "mps" -> sharing.mps();
      case "time-slicing" -> sharing.timeSlicing();
      default -> null;
    };
  }

  /** Replicas configured for a resource name such as {@code nvidia.com/gpu}; 1 when unshared. */
  public int replicasFor(String resourceName) {
    ReplicatedResources active = activeSharing();
    if (active == null) {
      return 1;
    }
    return active.resources().stream()
        .filter(r -> r.name().equals(resourceName))
        .mapToInt(ReplicatedResource::replicas)
        .findFirst()
        .orElse(1);
  }

  /** True when a shared resource is advertised under {@code <name>.shared}. */
  public boolean renamedFor(String resourceName) {
    ReplicatedResources active = activeSharing();
    return active != null && replicasFor(resourceName) > 1 && active.renameByDefault();
  }

  /**
   * Agent flags ({@code flags:}). The values the agents use are checked when they resolve their
   * settings ({@link io.gpuoperator.config.Settings}), so a bad value reads the same from the file
   * as from a flag or a variable.
   *
   * @param migStrategy none, single or mixed
   * @param failOnInitError exit when the GPU backend cannot start
   * @param nvidiaDriverRoot where the driver is installed
   * @param nvidiaDevRoot where device nodes are (defaults to the driver root)
   * @param gdsEnabled GPUDirect Storage
   * @param mofedEnabled MOFED
   * @param gdrcopyEnabled GDRCopy
   * @param mpsRoot the MPS root directory
   * @param useNodeFeatureApi write NodeFeature objects instead of the local feature file
   * @param deviceDiscoveryStrategy auto, nvml or tegra
   * @param plugin device-plugin flags
   * @param gfd feature-discovery flags
   */
  public record Flags(
      String migStrategy,
      Boolean failOnInitError,
      String nvidiaDriverRoot,
      String nvidiaDevRoot,
      Boolean gdsEnabled,
      Boolean mofedEnabled,
      Boolean gdrcopyEnabled,
      String mpsRoot,
      @JsonProperty("useNodeFeatureAPI") Boolean useNodeFeatureApi,
      String deviceDiscoveryStrategy,
      PluginFlags plugin,
      GfdFlags gfd) {
    public Flags {
      DevicePluginConfigs.oneOf(
          "deviceDiscoveryStrategy", deviceDiscoveryStrategy, DISCOVERY_STRATEGIES);
    }
  }

  /**
   * Device-plugin flags ({@code flags.plugin:}).
   *
   * @param passDeviceSpecs add device nodes to Allocate responses
   * @param deviceListStrategy how devices reach the container (a string or a list)
   * @param deviceIdStrategy uuid or index
   * @param cdiAnnotationPrefix prefix of CDI annotations
   * @param nvidiaCtkPath the nvidia-ctk binary
   * @param nvidiaCdiHookPath the nvidia-cdi-hook binary
   * @param containerDriverRoot where the driver root is mounted in the plugin's container
   * @param sharedDevicesAllocationPolicy distributed or packed
   */
  public record PluginFlags(
      Boolean passDeviceSpecs,
      @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
          List<String> deviceListStrategy,
      @JsonProperty("deviceIDStrategy") String deviceIdStrategy,
      String cdiAnnotationPrefix,
      @JsonProperty("nvidiaCTKPath") String nvidiaCtkPath,
      @JsonProperty("nvidiaCDIHookPath") String nvidiaCdiHookPath,
      String containerDriverRoot,
      String sharedDevicesAllocationPolicy) {
    public PluginFlags {
      if (deviceListStrategy != null) {
        deviceListStrategy = List.copyOf(deviceListStrategy);
      }
    }
  }

  /**
   * Feature-discovery flags ({@code flags.gfd:}).
   *
   * @param oneshot label once and exit
   * @param noTimestamp leave out {@code nvidia.com/gfd.timestamp}
   * @param sleepInterval time between labelling passes (Go duration, or {@code infinite})
   * @param outputFile the NFD local feature file
   * @param machineTypeFile where the machine type is read from
   */
  public record GfdFlags(
      Boolean oneshot,
      Boolean noTimestamp,
      String sleepInterval,
      String outputFile,
      String machineTypeFile) {}

  /**
   * Resource naming patterns (parsed; renaming is disabled as in the original).
   *
   * @param gpus patterns for full GPUs
   * @param mig patterns for MIG devices
   */
  public record Resources(List<NamedPattern> gpus, List<NamedPattern> mig) {}

  /**
   * One resource pattern.
   *
   * @param pattern a product-name glob
   * @param name the resource name it maps to
   */
  public record NamedPattern(String pattern, String name) {}

  /**
   * Sharing ({@code sharing:}).
   *
   * @param timeSlicing time-slicing replicas
   * @param mps MPS replicas
   */
  public record Sharing(ReplicatedResources timeSlicing, ReplicatedResources mps) {}

  /**
   * Replicated resources of one sharing mode.
   *
   * @param renameByDefault advertise shared resources as {@code <name>.shared}
   * @param failRequestsGreaterThanOne refuse requests for more than one replica
   * @param resources the resources to replicate
   */
  public record ReplicatedResources(
      Boolean renameByDefault,
      Boolean failRequestsGreaterThanOne,
      List<ReplicatedResource> resources) {
    public ReplicatedResources {
      if (resources == null || resources.isEmpty()) {
        throw new IllegalArgumentException("resources: no resources specified");
      }
      resources = List.copyOf(resources);
      renameByDefault = renameByDefault != null && renameByDefault;
    }

    /** True when some resource has more than one replica. */
    public boolean hasReplicas() {
      return resources.stream().anyMatch(r -> r.replicas() > 1);
    }
  }

  /**
   * One replicated resource.
   *
   * @param name {@code nvidia.com/gpu} or {@code nvidia.com/mig-<profile>}
   * @param rename parsed and ignored, as in the original
   * @param devices which devices; the original forces {@code all}
   * @param replicas how many replicas each device is advertised as (at least 2)
   */
  public record ReplicatedResource(
      String name,
      String rename,
      @JsonDeserialize(using = ReplicatedDevices.Deserializer.class) ReplicatedDevices devices,
      Integer replicas) {
    public ReplicatedResource {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("name: required (e.g. nvidia.com/gpu)");
      }
      String short_ = name.startsWith("nvidia.com/") ? name.substring("nvidia.com/".length()) : "";
      if (!(short_.equals("gpu") || short_.startsWith("mig-"))) {
        throw new IllegalArgumentException(
            "name: expected nvidia.com/gpu or nvidia.com/mig-<profile>, got " + name);
      }
      if (replicas == null) {
        throw new IllegalArgumentException("replicas: required for " + name);
      }
      if (replicas < 2 || replicas > MAX_REPLICAS) {
        throw new IllegalArgumentException(
            "replicas: expected a whole number from 2 to "
                + MAX_REPLICAS
                + ", got "
                + replicas
                + " for "
                + name);
      }
      // The original parses per-resource devices but always replicates all of them.
      devices = ReplicatedDevices.ALL;
    }
  }

  /**
   * IMEX channels.
   *
   * @param channelIds channel ids to inject
   * @param required fail when the channels are missing
   */
  public record Imex(@JsonProperty("channelIDs") List<Integer> channelIds, Boolean required) {
    public Imex {
      if (channelIds != null) {
        for (Integer id : channelIds) {
          if (id == null || id < 0 || id > MAX_IMEX_CHANNEL) {
            throw new IllegalArgumentException(
                "channelIDs: expected whole numbers from 0 to " + MAX_IMEX_CHANNEL + ", got " + id);
          }
        }
        channelIds = List.copyOf(channelIds);
      }
    }
  }

  /** The highest IMEX channel the driver creates (channels 0 to 2047). */
  public static final int MAX_IMEX_CHANNEL = 2047;
}
