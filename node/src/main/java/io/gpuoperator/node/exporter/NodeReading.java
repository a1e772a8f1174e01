package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.Telemetry;
import java.util.List;
import java.util.Map;

/**
 * What one collection read from the GPU backend: the series' entities with their values, and how
 * the kubelet's device IDs map to them.
 *
 * @param driverVersion the driver's version, for the {@code DCGM_FI_DRIVER_VERSION} label
 * @param entities the GPUs and GPU instances to export, in index order
 * @param deviceIds every device ID a pod can hold (GPU and MIG UUIDs, {@code nvidia<minor>}, DRA
 *     device names) to the entity it names
 * @param failedGpus GPUs whose reading failed this time (left out, e.g. fallen off the bus), with
 *     the error
 */
public record NodeReading(
    String driverVersion,
    List<Entity> entities,
    Map<String, DeviceKey> deviceIds,
    Map<Integer, String> failedGpus) {

  /**
   * One GPU or GPU instance.
   *
   * @param key what it is
   * @param gpu the (parent) GPU
   * @param mig the GPU instance's MIG device, null for a whole GPU
   * @param own its own reading (for a GPU instance: its framebuffer)
   * @param parent the parent GPU's reading (the same as {@code own} for a whole GPU)
   * @param lastXid the last XID seen on the GPU, 0 when none
   * @param profiling its profiling fields, or why it has none
   */
  public record Entity(
      DeviceKey key,
      GpuDevice gpu,
      MigDevice mig,
      Telemetry own,
      Telemetry parent,
      long lastXid,
      Profiling profiling) {}
}
