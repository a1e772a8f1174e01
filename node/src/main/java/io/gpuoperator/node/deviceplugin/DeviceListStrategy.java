package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Values;

/**
 * How Allocate tells the container runtime which devices to inject ({@code deviceListStrategy}).
 */
public enum DeviceListStrategy {
  /** {@code NVIDIA_VISIBLE_DEVICES=<ids>}. */
  ENVVAR,
  /** One mount of /dev/null per device under /var/run/nvidia-container-devices. */
  VOLUME_MOUNTS,
  /** A {@code cdi.k8s.io/...} annotation listing CDI device names. */
  CDI_ANNOTATIONS,
  /** The CRI's CDI device field. */
  CDI_CRI;

  /**
   * The config-file spelling: {@code envvar}, {@code volume-mounts}, {@code cdi-annotations} or
   * {@code cdi-cri}.
   */
  public String value() {
    return Values.kebab(this);
  }

  /** True for the CDI strategies, which need no env, mounts or device specs. */
  public boolean cdi() {
    return this == CDI_ANNOTATIONS || this == CDI_CRI;
  }

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static DeviceListStrategy parse(String value) {
    return Parse.constant("device list strategy", values()).apply(value);
  }
}
