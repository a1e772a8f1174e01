package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.node.cdi.DeviceNodes;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.MigDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns a GPU inventory and the settings into the resources to advertise: {@code nvidia.com/gpu}
 * and, with the mixed MIG strategy, {@code nvidia.com/mig-<profile>}, each device a UUID or a
 * replica {@code <uuid>::<n>}. Pure: no I/O.
 */
public final class DeviceResourcesModel {
  private DeviceResourcesModel() {}

  /**
   * The resources in name order, leaving out those with no devices.
   *
   * @throws IllegalArgumentException when the MIG layout does not fit the single strategy, or a
   *     resource name is too long
   */
  public static List<ResourceSet> build(GpuInventory inventory, DevicePluginSettings settings) {
    Map<String, List<PluginDevice>> byResource = new LinkedHashMap<>();
    switch (settings.migStrategy()) {
      case NONE -> {
        for (GpuDevice gpu : inventory.gpus()) {
          add(byResource, PluginNames.GPU_RESOURCE, wholeGpu(gpu));
        }
      }
      case SINGLE -> single(inventory, byResource);
      case MIXED -> {
        for (GpuDevice gpu : inventory.gpus()) {
          if (!inventory.migEnabled().contains(gpu.index())) {
            add(byResource, PluginNames.GPU_RESOURCE, wholeGpu(gpu));
            continue;
          }
          for (MigDevice mig : inventory.migDevices().getOrDefault(gpu.index(), List.of())) {
            // Like the original, only profiles whose compute instance spans the GPU instance.
            if (mig.profile().wholeGpuInstance()) {
              add(
                  byResource,
                  PluginNames.MIG_RESOURCE_PREFIX + mig.profile().resourceSuffix(),
                  migDevice(gpu, mig, inventory.capMinors()));
            }
          }
        }
      }
    }
    List<ResourceSet> out = new ArrayList<>();
    for (String name : new TreeSet<>(byResource.keySet())) {
      out.add(share(name, byResource.get(name), settings.sharing()));
    }
    return out;
  }

  private static void single(GpuInventory inventory, Map<String, List<PluginDevice>> out) {
    List<Integer> enabled = inventory.migEnabled();
    if (enabled.isEmpty()) {
      for (GpuDevice gpu : inventory.gpus()) {
        add(out, PluginNames.GPU_RESOURCE, wholeGpu(gpu));
      }
      return;
    }
    List<Integer> disabled =
        inventory.gpus().stream().map(GpuDevice::index).filter(i -> !enabled.contains(i)).toList();
    if (!disabled.isEmpty()) {
      throw new IllegalArgumentException(
          "migStrategy single: GPUs "
              + enabled
              + " have MIG enabled but GPUs "
              + disabled
              + " do not; the single strategy needs MIG on all GPUs or none (use mixed)");
    }
    TreeSet<String> profiles = new TreeSet<>();
    for (GpuDevice gpu : inventory.gpus()) {
      List<MigDevice> migs = inventory.migDevices().getOrDefault(gpu.index(), List.of());
      if (migs.isEmpty()) {
        throw new IllegalArgumentException(
            "migStrategy single: GPU " + gpu.index() + " has MIG enabled but no MIG devices");
      }
      for (MigDevice mig : migs) {
        profiles.add(mig.profile().name());
        add(out, PluginNames.GPU_RESOURCE, migDevice(gpu, mig, inventory.capMinors()));
      }
    }
    if (profiles.size() > 1) {
      throw new IllegalArgumentException(
          "migStrategy single: more than one MIG profile in use "
              + profiles
              + "; the single strategy needs one profile on every GPU (use mixed)");
    }
  }

  private static ResourceSet share(String name, List<PluginDevice> devices, Sharing sharing) {
    int replicas = sharing.replicasOf(name);
    if (replicas < 2) {
      return checked(new ResourceSet(name, devices, 1));
    }
    List<PluginDevice> replicated = new ArrayList<>();
    for (PluginDevice d : devices) {
      for (int n = 0; n < replicas; n++) {
        replicated.add(d.replica(n));
      }
    }
    String advertised = sharing.renameByDefault() ? name + PluginNames.SHARED_SUFFIX : name;
    return checked(new ResourceSet(advertised, replicated, replicas));
  }

  private static ResourceSet checked(ResourceSet r) {
    String bare = r.name().substring(PluginNames.RESOURCE_PREFIX.length());
    if (bare.length() > PluginNames.MAX_RESOURCE_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "resource name "
              + r.name()
              + " is longer than "
              + PluginNames.MAX_RESOURCE_NAME_LENGTH
              + " characters after the prefix");
    }
    return r;
  }

  private static void add(Map<String, List<PluginDevice>> out, String name, PluginDevice d) {
    out.computeIfAbsent(name, k -> new ArrayList<>()).add(d);
  }

  /** A whole GPU as a device with its device node; the DRA plugin uses the same nodes. */
  public static PluginDevice wholeGpu(GpuDevice gpu) {
    return new PluginDevice(
        gpu.uuid(),
        gpu.uuid(),
        Integer.toString(gpu.index()),
        gpu.index(),
        -1,
        -1,
        DeviceNodes.gpu(gpu),
        gpu.numaNode(),
        -1);
  }

  /**
   * A MIG device with its device nodes: the parent GPU's and the GPU- and compute-instance access
   * capabilities ({@code /dev/nvidia-caps/nvidia-cap<minor>}) that exist in {@code capMinors}.
   */
  public static PluginDevice migDevice(
      GpuDevice gpu, MigDevice mig, Map<String, Integer> capMinors) {
    List<String> paths = DeviceNodes.mig(gpu, mig, capMinors);
    return new PluginDevice(
        mig.uuid(),
        mig.uuid(),
        gpu.index() + ":" + mig.index(),
        gpu.index(),
        mig.gpuInstanceId(),
        mig.computeInstanceId(),
        paths,
        gpu.numaNode(),
        -1);
  }
}
