package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.gpuoperator.node.gpu.Placement;
import java.util.Map;

/**
 * One device this node offers through DRA: what goes into the ResourceSlice (name, attributes,
 * capacity, the counters it consumes) and what prepare needs to find it on the GPUs again.
 *
 * @param name the device name, unique in the node's pool ({@code gpu-0}, {@code
 *     gpu-0-mig-1g10gb-19-0})
 * @param kind what it is on the hardware
 * @param gpuIndex the (parent) GPU's index
 * @param uuid the GPU or MIG device UUID; null for a MIG placement nobody has created yet
 * @param mig the GPU-instance profile and placement of a MIG device; null for a whole GPU
 * @param attributes attribute values by qualified name (unqualified: in the driver's domain)
 * @param capacity capacities by name
 * @param counterSet the counter set it consumes from; null for devices that consume none
 * @param consumes the counters it consumes from {@code counterSet}
 */
public record DraDevice(
    String name,
    Kind kind,
    int gpuIndex,
    String uuid,
    MigSlot mig,
    Map<String, DeviceAttribute> attributes,
    Map<String, DeviceCapacity> capacity,
    String counterSet,
    Map<String, Long> consumes) {

  public DraDevice {
    attributes = Map.copyOf(attributes);
    capacity = Map.copyOf(capacity);
    consumes = consumes == null ? Map.of() : Map.copyOf(consumes);
  }

  /** What a device is on the hardware. */
  public enum Kind {
    /** A whole GPU. */
    GPU,
    /** A MIG device that exists (created by an administrator or mig-manager). */
    MIG,
    /**
     * A place a MIG device could be created (partitionable devices): the plugin creates it when a
     * claim that was allocated it is prepared, and destroys it at unprepare.
     */
    MIG_PLACEMENT
  }

  /** True for a MIG device, existing or to be created. */
  public boolean isMig() {
    return kind != Kind.GPU;
  }

  /**
   * Where a MIG device sits.
   *
   * @param gpuInstanceProfileId NVML's GPU-instance profile id (19 for 1g.10gb on H100)
   * @param profile the profile name, e.g. {@code 1g.10gb}
   * @param placement its memory slices
   */
  public record MigSlot(int gpuInstanceProfileId, String profile, Placement placement) {}
}
