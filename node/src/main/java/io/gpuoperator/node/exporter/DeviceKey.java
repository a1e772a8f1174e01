package io.gpuoperator.node.exporter;

/**
 * What a series describes: a whole GPU ({@code gpuInstanceId} {@link #WHOLE_GPU}) or one GPU
 * instance of a MIG-enabled GPU. Pods are attributed to these keys.
 */
public record DeviceKey(int gpu, int gpuInstanceId) {
  /** The GPU-instance id of a whole-GPU key. */
  public static final int WHOLE_GPU = -1;

  /** The key of a whole GPU. */
  public static DeviceKey gpu(int index) {
    return new DeviceKey(index, WHOLE_GPU);
  }

  /** True when the key is one MIG GPU instance. */
  public boolean mig() {
    return gpuInstanceId != WHOLE_GPU;
  }
}
