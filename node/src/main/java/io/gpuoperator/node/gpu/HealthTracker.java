package io.gpuoperator.node.gpu;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The health state of every device UUID (GPUs and MIG devices): which are unhealthy, since when and
 * why. A critical XID or a double-bit ECC error marks the device it concerns (a whole-GPU event
 * marks the GPU and all its MIG devices); a device is healthy again after a quiet period with no
 * new critical event (the original never recovers). A backend failure marks every device. Not
 * thread-safe: {@link HealthMonitor} owns it. Pure: time is passed in.
 */
public final class HealthTracker {
  private final XidPolicy policy;
  private final long recoveryMillis;
  private GpuInventory inventory;
  private final Map<String, Long> lastCritical = new HashMap<>();
  private final Map<String, String> reasons = new HashMap<>();

  /**
   * @param recovery quiet period after which a device is healthy again; zero, negative or {@code
   *     infinite}: never
   */
  public HealthTracker(XidPolicy policy, Duration recovery, GpuInventory inventory) {
    this.policy = policy;
    // "infinite" (or anything beyond a century) means never, like zero.
    this.recoveryMillis =
        recovery.compareTo(Duration.ofDays(36_500)) > 0 ? 0 : Math.max(0, recovery.toMillis());
    this.inventory = inventory;
  }

  /** Replaces the inventory (after a MIG change or reload); state of known UUIDs is kept. */
  public void inventory(GpuInventory inventory) {
    this.inventory = inventory;
  }

  /** Applies an event; true when a device changed state or its unhealthy period was extended. */
  public boolean onEvent(GpuEvent event, long nowMillis) {
    String reason;
    switch (event.type()) {
      case XID_CRITICAL_ERROR -> {
        if (!policy.critical(event.data())) {
          return false;
        }
        reason = "XID " + event.data();
      }
      case DOUBLE_BIT_ECC_ERROR -> reason = "double-bit ECC error";
      default -> {
        return false;
      }
    }
    boolean changed = false;
    for (String uuid : affected(event)) {
      changed |= mark(uuid, reason, nowMillis);
    }
    return changed;
  }

  /** Marks every device unhealthy because the backend failed. */
  public boolean onBackendFailure(String why, long nowMillis) {
    boolean changed = false;
    for (String uuid : allUuids()) {
      changed |= mark(uuid, "GPU backend failed: " + why, nowMillis);
    }
    return changed;
  }

  /** Recovers devices whose quiet period has passed; true when any did. */
  public boolean tick(long nowMillis) {
    if (recoveryMillis <= 0) {
      return false;
    }
    return lastCritical
        .entrySet()
        .removeIf(
            e -> {
              boolean quiet = nowMillis - e.getValue() >= recoveryMillis;
              if (quiet) {
                reasons.remove(e.getKey());
              }
              return quiet;
            });
  }

  /** UUIDs currently unhealthy. */
  public Set<String> unhealthy() {
    return new TreeSet<>(lastCritical.keySet());
  }

  /** Why a UUID is unhealthy, or null. */
  public String reason(String uuid) {
    return reasons.get(uuid);
  }

  private boolean mark(String uuid, String reason, long now) {
    boolean wasHealthy = lastCritical.put(uuid, now) == null;
    reasons.put(uuid, reason);
    return wasHealthy;
  }

  private List<String> affected(GpuEvent event) {
    List<String> out = new ArrayList<>();
    List<MigDevice> migs = inventory.migDevices().getOrDefault(event.gpuIndex(), List.of());
    if (event.wholeGpu()) {
      out.add(gpuUuid(event));
      migs.forEach(m -> out.add(m.uuid()));
      return out;
    }
    for (MigDevice m : migs) {
      if (m.gpuInstanceId() == event.gpuInstanceId()
          && m.computeInstanceId() == event.computeInstanceId()) {
        out.add(m.uuid());
      }
    }
    if (out.isEmpty()) {
      // An instance we do not know (created after the snapshot): blame the whole GPU.
      out.add(gpuUuid(event));
      migs.forEach(m -> out.add(m.uuid()));
    }
    return out;
  }

  private String gpuUuid(GpuEvent event) {
    if (event.gpuUuid() != null && !event.gpuUuid().isEmpty()) {
      return event.gpuUuid();
    }
    return inventory.gpus().stream()
        .filter(g -> g.index() == event.gpuIndex())
        .map(GpuDevice::uuid)
        .findFirst()
        .orElse("gpu-index-" + event.gpuIndex());
  }

  private List<String> allUuids() {
    List<String> out = new ArrayList<>();
    for (GpuDevice g : inventory.gpus()) {
      out.add(g.uuid());
      inventory.migDevices().getOrDefault(g.index(), List.of()).forEach(m -> out.add(m.uuid()));
    }
    return out;
  }
}
