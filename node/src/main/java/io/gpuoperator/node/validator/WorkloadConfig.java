package io.gpuoperator.node.validator;

import io.gpuoperator.config.Values;
import java.util.Arrays;
import java.util.Map;

/**
 * What a node runs, by its {@code nvidia.com/gpu.workload.config} label: containers, VMs with whole
 * GPUs passed through, or VMs with vGPUs. The sandbox steps check only what their workload needs
 * and record it in {@code workload-type}, which the sandbox device plugins read.
 */
public enum WorkloadConfig {
  CONTAINER,
  VM_PASSTHROUGH,
  VM_VGPU;

  /** The node label that picks the workload (set by the cluster's admin). */
  public static final String LABEL = "nvidia.com/gpu.workload.config";

  /**
   * The label value and the content of {@code workload-type}: {@code container}, {@code
   * vm-passthrough} or {@code vm-vgpu}.
   */
  public String label() {
    return Values.kebab(this);
  }

  /** Parses container, vm-passthrough or vm-vgpu. */
  public static WorkloadConfig parse(String value) {
    return io.gpuoperator.config.Parse.oneOf("workload", values(), WorkloadConfig::label)
        .apply(value);
  }

  /**
   * The node's workload: its label when that names one, else {@code fallback}. An unknown label
   * value falls back too, as in the original, since the label is the admin's and a typo there must
   * not stop validation; {@code why} receives the reason for the log.
   */
  static WorkloadConfig of(
      Map<String, String> labels,
      WorkloadConfig fallback,
      java.util.function.Consumer<String> why) {
    String value = labels.get(LABEL);
    if (value == null) {
      why.accept("no " + LABEL + " label; the default workload " + fallback.label());
      return fallback;
    }
    WorkloadConfig w = find(value);
    if (w == null) {
      why.accept(
          LABEL
              + "="
              + value
              + " is no workload (container, vm-passthrough, vm-vgpu); the default "
              + fallback.label());
      return fallback;
    }
    why.accept(LABEL + "=" + value);
    return w;
  }

  private static WorkloadConfig find(String value) {
    return Arrays.stream(values())
        .filter(w -> w.label().equals(value == null ? null : value.trim()))
        .findFirst()
        .orElse(null);
  }
}
