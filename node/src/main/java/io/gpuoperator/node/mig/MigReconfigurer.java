package io.gpuoperator.node.mig;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigGeometry;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.MigProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one named MIG configuration to this node's GPUs with the original's protocol, safely:
 *
 * <ol>
 *   <li>resolve which entry applies to each GPU and check it against the GPU's MIG table; a
 *       violation fails the change before anything is touched;
 *   <li>if every GPU already has its layout, report {@code success} and stop: no pause, no restart;
 *   <li>state {@code pending}; pause the GPU clients (their deploy labels become {@code
 *       paused-for-mig-change}, a user's {@code false} is left alone) and wait for their pods to
 *       go; then stop the host's GPU client services that are active ({@link HostGpuClients});
 *   <li>apply the MIG mode (with a GPU reset where one is needed; {@code rebooting} when the reset
 *       fails and reboots are allowed), then the geometry on the GPUs that differ (destroy compute,
 *       then GPU instances; create in placement order);
 *   <li>verify the GPUs now have exactly the requested layout;
 *   <li>start the host services it stopped, resume the clients (only labels it paused) and report
 *       {@code success}.
 * </ol>
 *
 * A failure after the pause reverts a pending mode change, starts the host services it stopped,
 * resumes the clients, reports {@code failed} and records the reason as an Event on the Node. A
 * host service that does not start again fails the change too (its reason in the Event).
 */
public record MigReconfigurer(
    GpuBackend gpus,
    NodeOps node,
    MigCatalog catalog,
    Duration podsGoneTimeout,
    Rebooter rebooter,
    HostGpuClients hostClients) {
  private static final Logger LOG = LoggerFactory.getLogger(MigReconfigurer.class);

  /** Reboots the host (the original's {@code WITH_REBOOT}); null when reboots are not allowed. */
  @FunctionalInterface
  public interface Rebooter {
    void reboot() throws Exception;
  }

  /**
   * How a change ended.
   *
   * @param state the value written to {@code nvidia.com/mig.config.state}
   * @param message what happened, for logs and the Event
   * @param paused whether GPU clients were paused
   */
  public record Outcome(String state, String message, boolean paused) {}

  /** The layout one GPU should get from the configuration. */
  record Desired(int gpu, boolean enabled, Map<String, Integer> devices, String entry) {}

  /** A MIG manager that leaves the host's services alone. */
  public MigReconfigurer(
      GpuBackend gpus,
      NodeOps node,
      MigCatalog catalog,
      Duration podsGoneTimeout,
      Rebooter rebooter) {
    this(gpus, node, catalog, podsGoneTimeout, rebooter, HostGpuClients.NONE);
  }

  /** Reports a failure that happened before any GPU was looked at (e.g. an unreadable file). */
  public Outcome fail(String message) {
    return finish(MigLabels.FAILED, message, false, false);
  }

  /** Applies the configuration {@code name} of {@code file} and reports the outcome on the node. */
  public Outcome reconfigure(String name, MigConfigFile file) throws InterruptedException {
    List<Desired> desired;
    List<Integer> changing = new ArrayList<>();
    try {
      desired = resolve(name, file);
      for (Desired d : desired) {
        if (!matches(d)) {
          changing.add(d.gpu());
        }
      }
    } catch (ConfigException | GpuBackendException e) {
      return finish(MigLabels.FAILED, "MIG config " + name + ": " + e.getMessage(), false, false);
    }
    if (changing.isEmpty()) {
      return finish(MigLabels.SUCCESS, "MIG config " + name + " is already in place", false, false);
    }
    LOG.info("MIG config {}: changing GPUs {}", name, changing);
    node.patchLabels(Map.of(MigLabels.STATE, MigLabels.PENDING));
    Map<Integer, MigMode> modesBefore = new TreeMap<>();
    List<String> hostStopped = new ArrayList<>();
    try {
      pause();
      hostStopped.addAll(hostClients.stopActive());
      for (int gpu : changing) {
        modesBefore.put(gpu, gpus.migMode(gpu));
      }
      Optional<Outcome> rebooting = applyModes(name, desired, changing);
      if (rebooting.isPresent()) {
        return rebooting.get();
      }
      for (Desired d : desired) {
        if (changing.contains(d.gpu()) && d.enabled()) {
          applyGeometry(d);
        }
      }
      for (Desired d : desired) {
        if (!matches(d)) {
          throw new IllegalStateException(
              "GPU "
                  + d.gpu()
                  + " has "
                  + describe(current(d.gpu()))
                  + " after the change, not the requested "
                  + describe(normalized(d.devices())));
        }
      }
    } catch (InterruptedException e) {
      revertModes(modesBefore);
      List<String> notStarted = hostClients.start(hostStopped);
      finish(
          MigLabels.FAILED,
          withHost("MIG config " + name + ": interrupted", notStarted),
          true,
          false);
      throw e;
    } catch (RuntimeException e) {
      revertModes(modesBefore);
      List<String> notStarted = hostClients.start(hostStopped);
      return finish(
          MigLabels.FAILED,
          withHost("MIG config " + name + ": " + message(e), notStarted),
          true,
          false);
    }
    List<String> notStarted = hostClients.start(hostStopped);
    node.deletePods(List.of(MigLabels.OPERATOR_VALIDATOR_APP));
    String applied = "MIG config " + name + " applied to GPUs " + changing;
    if (!notStarted.isEmpty()) {
      return finish(
          MigLabels.FAILED, applied + ", but " + String.join("; ", notStarted), true, true);
    }
    return finish(MigLabels.SUCCESS, applied, true, true);
  }

  private static String withHost(String message, List<String> notStarted) {
    return notStarted.isEmpty() ? message : message + "; " + String.join("; ", notStarted);
  }

  /** The entry applying to each GPU (the last one selecting it, as mig-parted), checked. */
  List<Desired> resolve(String name, MigConfigFile file) {
    List<MigConfigSpec> entries = file.config(name);
    List<Desired> out = new ArrayList<>();
    List<GpuDevice> devices = gpus.devices();
    for (GpuDevice d : devices) {
      MigConfigSpec chosen = null;
      int index = -1;
      for (int i = 0; i < entries.size(); i++) {
        if (entries.get(i).selects(d)) {
          chosen = entries.get(i);
          index = i;
        }
      }
      if (chosen == null) {
        continue;
      }
      String where = "entry " + index + " (" + chosen.describe() + ")";
      if (!d.migCapable()) {
        if (chosen.migEnabled()) {
          throw new ConfigException(
              where
                  + " enables MIG on GPU "
                  + d.index()
                  + " ("
                  + d.name()
                  + "), which is not MIG-capable");
        }
        continue;
      }
      if (chosen.migEnabled()) {
        String problem = problem(d, chosen.migDevices());
        if (problem != null) {
          throw new ConfigException(where + ", GPU " + d.index() + ": " + problem);
        }
      }
      out.add(new Desired(d.index(), chosen.migEnabled(), chosen.migDevices(), where));
    }
    if (out.isEmpty()) {
      throw new ConfigException(
          "selects none of this node's MIG-capable GPUs ("
              + devices.stream()
                  .map(g -> g.name() + " " + g.deviceFilterId())
                  .distinct()
                  .collect(Collectors.joining(", "))
              + ")");
    }
    return out;
  }

  /** Checked against what the GPU reports when its MIG mode is on, else its table. */
  private String problem(GpuDevice d, Map<String, Integer> devices) {
    MigMode mode = gpus.migMode(d.index());
    if (mode.current()) {
      return MigGeometry.of(gpus, d.index()).check(devices).problem();
    }
    return catalog
        .forGpu(d)
        .map(hw -> MigConfigValidator.problem(hw, devices))
        .orElse(null); // no table: checked against the GPU once its MIG mode is on
  }

  private boolean matches(Desired d) {
    MigMode mode = gpus.migMode(d.gpu());
    if (mode.resetPending() || mode.current() != d.enabled()) {
      return false;
    }
    return !d.enabled() || current(d.gpu()).equals(normalized(d.devices()));
  }

  private Map<String, Integer> current(int gpu) {
    Map<String, Integer> out = new TreeMap<>();
    for (MigDevice m : gpus.migDevices(gpu)) {
      out.merge(m.profile().name(), 1, Integer::sum);
    }
    return out;
  }

  private static Map<String, Integer> normalized(Map<String, Integer> devices) {
    Map<String, Integer> out = new TreeMap<>();
    devices.forEach(
        (k, v) -> {
          if (v > 0) {
            out.merge(MigProfile.parse(k).name(), v, Integer::sum);
          }
        });
    return out;
  }

  private static String describe(Map<String, Integer> devices) {
    return devices.isEmpty()
        ? "no MIG devices"
        : devices.entrySet().stream()
            .map(e -> e.getKey() + " ×" + e.getValue())
            .collect(Collectors.joining(" + "));
  }

  private void pause() throws InterruptedException {
    Map<String, String> labels = node.labels();
    Map<String, String> patch = new LinkedHashMap<>();
    for (String key : MigLabels.CLIENT_DEPLOY_LABELS) {
      if ("true".equals(labels.get(key))) {
        patch.put(key, MigLabels.PAUSED);
      }
    }
    if (!patch.isEmpty()) {
      node.patchLabels(patch);
    }
    node.deletePods(MigLabels.WORKLOAD_VALIDATOR_APPS);
    if (!node.awaitPodsGone(MigLabels.CLIENT_APPS, podsGoneTimeout)) {
      throw new IllegalStateException(
          "GPU client pods ("
              + String.join(", ", MigLabels.CLIENT_APPS)
              + ") still run on the node after "
              + podsGoneTimeout.toSeconds()
              + " s; check why they do not terminate");
    }
  }

  private Optional<Outcome> applyModes(String name, List<Desired> desired, List<Integer> changing)
      throws InterruptedException {
    List<Integer> needReset = new ArrayList<>();
    for (Desired d : desired) {
      if (!changing.contains(d.gpu())) {
        continue;
      }
      MigMode mode = gpus.migMode(d.gpu());
      if (!d.enabled() && (mode.current() || mode.pending())) {
        destroyAll(d.gpu());
      }
      if (mode.pending() != d.enabled()) {
        mode = gpus.setMigMode(d.gpu(), d.enabled());
      }
      if (mode.resetPending()) {
        needReset.add(d.gpu());
      }
    }
    for (int gpu : needReset) {
      try {
        gpus.resetGpu(gpu);
      } catch (GpuBackendException e) {
        if (rebooter == null) {
          throw new IllegalStateException(
              "GPU "
                  + gpu
                  + ": the MIG mode change needs a GPU reset, which failed ("
                  + e.getMessage()
                  + "); stop what uses the GPU, or set WITH_REBOOT=true to reboot the node instead",
              e);
        }
        LOG.warn("GPU {} reset failed ({}); rebooting the node", gpu, e.getMessage());
        node.patchLabels(Map.of(MigLabels.STATE, MigLabels.REBOOTING));
        try {
          rebooter.reboot();
        } catch (InterruptedException ie) {
          throw ie;
        } catch (Exception re) {
          throw new IllegalStateException("reboot failed: " + re.getMessage(), re);
        }
        return Optional.of(
            new Outcome(MigLabels.REBOOTING, "MIG config " + name + ": rebooting", true));
      }
    }
    return Optional.empty();
  }

  private void applyGeometry(Desired d) {
    int gpu = d.gpu();
    if (current(gpu).equals(normalized(d.devices()))) {
      return;
    }
    destroyAll(gpu);
    MigGeometry.Fit fit = MigGeometry.of(gpus, gpu).check(d.devices());
    if (!fit.fits()) {
      throw new IllegalStateException("GPU " + gpu + ": " + fit.problem());
    }
    for (MigGeometry.Slot slot : fit.slots()) {
      GpuInstance gi = gpus.createGpuInstance(gpu, slot.profile().id(), slot.placement());
      ComputeInstanceProfile ci =
          gpus.computeInstanceProfiles(gpu, gi.id()).stream()
              .filter(p -> p.sliceCount() == slot.computeSlices())
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "GPU "
                              + gpu
                              + ": GPU instance "
                              + slot.profile().name()
                              + " offers no "
                              + slot.computeSlices()
                              + "-slice compute instance"));
      gpus.createComputeInstance(gpu, gi.id(), ci.id());
    }
  }

  private void destroyAll(int gpu) {
    if (!gpus.migMode(gpu).current()) {
      return;
    }
    for (GpuInstance gi : gpus.gpuInstances(gpu)) {
      for (ComputeInstance ci : gpus.computeInstances(gpu, gi.id())) {
        gpus.destroyComputeInstance(gpu, gi.id(), ci.id());
      }
    }
    for (GpuInstance gi : gpus.gpuInstances(gpu)) {
      gpus.destroyGpuInstance(gpu, gi.id());
    }
  }

  /**
   * Puts the MIG mode of each changed GPU back to what it was (a pending change is withdrawn, a
   * completed one undone with another reset), so a failed change does not leave some GPUs switched
   * and others not. Best effort: what cannot be undone is logged.
   */
  private void revertModes(Map<Integer, MigMode> before) {
    before.forEach(
        (gpu, mode) -> {
          try {
            MigMode now = gpus.migMode(gpu);
            if (now.pending() != mode.current()) {
              if (!mode.current()) {
                destroyAll(gpu);
              }
              now = gpus.setMigMode(gpu, mode.current());
            }
            if (now.resetPending()) {
              gpus.resetGpu(gpu);
            }
          } catch (GpuBackendException e) {
            LOG.warn("GPU {}: could not restore its MIG mode: {}", gpu, e.getMessage());
          }
        });
  }

  /**
   * Writes the state (and resumes paused clients in the same patch), records the Event, and logs.
   */
  private Outcome finish(String state, String message, boolean paused, boolean changed) {
    Map<String, String> patch = new LinkedHashMap<>();
    Map<String, String> labels = node.labels();
    for (String key : MigLabels.CLIENT_DEPLOY_LABELS) {
      if (MigLabels.PAUSED.equals(labels.get(key))) {
        patch.put(key, "true"); // also resumes clients a crashed earlier run left paused
      }
    }
    if (!state.equals(labels.get(MigLabels.STATE))) {
      patch.put(MigLabels.STATE, state);
    }
    if (!patch.isEmpty()) {
      node.patchLabels(patch);
    }
    if (state.equals(MigLabels.FAILED)) {
      LOG.error("{}", message);
      node.event("Warning", "MigConfigFailed", message);
    } else {
      LOG.info("{}", message);
      if (changed) {
        node.event("Normal", "MigConfigApplied", message);
      }
    }
    return new Outcome(state, message, paused);
  }

  private static String message(RuntimeException e) {
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }
}
