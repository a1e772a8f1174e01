package io.gpuoperator.node.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of the node's GPUs as the device plugin, the DRA plugin and the validator see them:
 * every GPU, whether MIG is on, its MIG devices, and the MIG capability device minors ({@code
 * /proc/driver/nvidia-caps/mig-minors}).
 *
 * @param gpus every GPU in index order
 * @param migEnabled indices of GPUs whose current MIG mode is enabled
 * @param migDevices MIG devices per GPU index
 * @param capMinors minor per capability path, e.g. {@code gpu0/gi1/access} → 12
 */
public record GpuInventory(
    List<GpuDevice> gpus,
    List<Integer> migEnabled,
    Map<Integer, List<MigDevice>> migDevices,
    Map<String, Integer> capMinors) {

  public GpuInventory {
    gpus = List.copyOf(gpus);
    migEnabled = List.copyOf(migEnabled);
    migDevices = Map.copyOf(migDevices);
    capMinors = Map.copyOf(capMinors);
  }

  /** Reads the backend now; {@code migMinorsFile} may be absent (no capability devices then). */
  public static GpuInventory read(GpuBackend backend, Path migMinorsFile) {
    List<GpuDevice> gpus = backend.devices();
    List<Integer> enabled = new java.util.ArrayList<>();
    Map<Integer, List<MigDevice>> mig = new TreeMap<>();
    for (GpuDevice gpu : gpus) {
      if (!gpu.migCapable()) {
        continue;
      }
      try {
        if (backend.migMode(gpu.index()).current()) {
          enabled.add(gpu.index());
          mig.put(gpu.index(), backend.migDevices(gpu.index()));
        }
      } catch (GpuBackendException.NotSupported e) {
        // Not MIG-capable after all (as NVML reports for some boards): a whole GPU.
      }
    }
    return new GpuInventory(gpus, enabled, mig, readCapMinors(migMinorsFile));
  }

  /**
   * Parses lines like {@code gpu0/gi1/access 12}, {@code gpu0/gi1/ci0/access 13} and the MIG
   * control capabilities {@code config 1}, {@code monitor 2}.
   */
  public static Map<String, Integer> readCapMinors(Path file) {
    Map<String, Integer> minors = new HashMap<>();
    if (file == null || !Files.isReadable(file)) {
      return minors;
    }
    try {
      for (String line : Files.readAllLines(file)) {
        String[] parts = line.trim().split("\\s+");
        if (parts.length == 2) {
          try {
            minors.put(parts[0], Integer.parseInt(parts[1]));
          } catch (NumberFormatException e) {
            // A malformed line names no device; the others still count.
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return minors;
  }
}
