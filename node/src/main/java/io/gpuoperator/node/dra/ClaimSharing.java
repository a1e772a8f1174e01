package io.gpuoperator.node.dra;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Which sharing settings each allocated device of a claim gets: every opaque entry for our driver
 * in order (the DeviceClass's, then the claim's; a later entry wins), applied to the results of the
 * requests it names (all when it names none) whose device is of its kind ({@code GpuConfig}: whole
 * GPUs, {@code MigDeviceConfig}: MIG devices). Devices no entry covers share by time-slicing at the
 * default interval. Pure.
 */
public final class ClaimSharing {
  private ClaimSharing() {}

  /**
   * Sharing per allocated device name.
   *
   * @param devices the claim's devices by name (from this node's inventory)
   * @throws IllegalArgumentException naming the claim, the config entry and the field at fault
   */
  public static Map<String, Sharing> resolve(
      ClaimAllocation claim, Function<String, DraDevice> devices) {
    Map<String, Sharing> out = new HashMap<>();
    for (ClaimAllocation.Result r : claim.results()) {
      out.put(r.device(), Sharing.DEFAULT);
    }
    for (ClaimAllocation.Config c : claim.configs()) {
      OpaqueConfig config;
      try {
        config = OpaqueConfig.parse(c.parameters());
      } catch (IllegalArgumentException e) {
        throw error(claim, c, "opaque parameters: " + e.getMessage());
      }
      List<ClaimAllocation.Result> targets = claim.results().stream().filter(c::appliesTo).toList();
      for (ClaimAllocation.Result r : targets) {
        DraDevice d = devices.apply(r.device());
        if (d.isMig() != config.mig()) {
          if (!c.requests().isEmpty()) {
            throw error(
                claim,
                c,
                config.kind()
                    + " names request "
                    + r.request()
                    + ", which was allocated "
                    + (d.isMig() ? "MIG device " : "GPU ")
                    + d.name()
                    + "; use "
                    + (d.isMig() ? DraNames.KIND_MIG_DEVICE_CONFIG : DraNames.KIND_GPU_CONFIG)
                    + " for it");
          }
          continue;
        }
        if (config.sharing() != null) {
          checkPerDevice(claim, c, config.sharing(), targets, devices);
          out.put(r.device(), config.sharing());
        }
      }
    }
    return out;
  }

  /** Per-device MPS limits must name one of the configured devices, by UUID or position. */
  private static void checkPerDevice(
      ClaimAllocation claim,
      ClaimAllocation.Config c,
      Sharing sharing,
      List<ClaimAllocation.Result> targets,
      Function<String, DraDevice> devices) {
    if (sharing.mps() == null) {
      return;
    }
    Set<String> known = new HashSet<>();
    for (int i = 0; i < targets.size(); i++) {
      known.add(Integer.toString(i));
      DraDevice d = devices.apply(targets.get(i).device());
      if (d.uuid() != null) {
        known.add(d.uuid());
      }
    }
    for (String key : sharing.mps().perDeviceLimitBytes().keySet()) {
      if (!known.contains(key)) {
        throw error(
            claim,
            c,
            "opaque parameters: sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit["
                + key
                + "]: not one of the claim's devices (expected a device UUID or an index from 0"
                + " to "
                + (targets.size() - 1)
                + ")");
      }
    }
  }

  private static IllegalArgumentException error(
      ClaimAllocation claim, ClaimAllocation.Config c, String message) {
    return new IllegalArgumentException(
        "ResourceClaim " + claim.ref() + ": " + c.where() + ": " + message);
  }
}
