package io.gpuoperator.sim.kubelet;

import java.util.Map;

/** Label keys, host paths and timings of the simulated kubelet, in one place. */
public final class KubeletConstants {
  private KubeletConstants() {}

  public static final String NFD_PREFIX = "feature.node.kubernetes.io/";

  /** NVIDIA's PCI vendor id in NFD labels. */
  public static final String NVIDIA_PCI_VENDOR = "10de";

  public static final String LABEL_PCI_NVIDIA = NFD_PREFIX + "pci-10de.present";
  public static final String LABEL_PCI_NVIDIA_3D = NFD_PREFIX + "pci-0302_10de.present";

  /** A virtio device every simulated node has, so that "NFD is present" on CPU-only nodes too. */
  public static final String LABEL_PCI_VIRTIO = NFD_PREFIX + "pci-1af4.present";

  public static final String LABEL_OS_ID = NFD_PREFIX + "system-os_release.ID";
  public static final String LABEL_OS_VERSION_ID = NFD_PREFIX + "system-os_release.VERSION_ID";
  public static final String LABEL_OS_VERSION_MAJOR =
      NFD_PREFIX + "system-os_release.VERSION_ID.major";
  public static final String LABEL_OS_VERSION_MINOR =
      NFD_PREFIX + "system-os_release.VERSION_ID.minor";
  public static final String LABEL_KERNEL_FULL = NFD_PREFIX + "kernel-version.full";
  public static final String LABEL_KERNEL_MAJOR = NFD_PREFIX + "kernel-version.major";
  public static final String LABEL_KERNEL_MINOR = NFD_PREFIX + "kernel-version.minor";
  public static final String LABEL_KERNEL_REVISION = NFD_PREFIX + "kernel-version.revision";
  public static final String LABEL_CPU_VENDOR = NFD_PREFIX + "cpu-model.vendor_id";

  public static final String LABEL_HOSTNAME = "kubernetes.io/hostname";
  public static final String LABEL_OS = "kubernetes.io/os";
  public static final String LABEL_ARCH = "kubernetes.io/arch";
  public static final String LABEL_BETA_OS = "beta.kubernetes.io/os";
  public static final String LABEL_BETA_ARCH = "beta.kubernetes.io/arch";

  public static final String LEASE_NAMESPACE = "kube-node-lease";
  public static final int LEASE_DURATION_SECONDS = 40;

  /** Host paths the node agents use, mapped onto each simulated node's own directories. */
  public static final String HOST_VALIDATIONS = "/run/nvidia/validations";

  public static final String HOST_DEVICE_PLUGINS = "/var/lib/kubelet/device-plugins";
  public static final String HOST_POD_RESOURCES = "/var/lib/kubelet/pod-resources";
  public static final String HOST_DRIVER_ROOT = "/run/nvidia/driver";
  public static final String HOST_CDI = "/var/run/cdi";

  /** The kubelet's plugin-registration and plugin directories (DRA plugins). */
  public static final String HOST_PLUGINS_REGISTRY = "/var/lib/kubelet/plugins_registry";

  public static final String HOST_PLUGINS = "/var/lib/kubelet/plugins";

  /** The file NVIDIA's driver container writes into the validations directory once it is up. */
  public static final String DRIVER_CONTAINER_READY = ".driver-ctr-ready";

  /** The kernel's list of loaded modules, which the validator reads for the GPUDirect ones. */
  public static final String PROC_MODULES = "/proc/modules";

  /** Container states' reasons, as the kubelet writes them. */
  public static final String REASON_CONTAINER_CREATING = "ContainerCreating";

  public static final String REASON_POD_INITIALIZING = "PodInitializing";
  public static final String REASON_CRASH_LOOP = "CrashLoopBackOff";
  public static final String REASON_COMPLETED = "Completed";
  public static final String REASON_ERROR = "Error";

  /** Exit code of a container stopped by a kill. */
  public static final int EXIT_KILLED = 137;

  /** Every well-known host path and the NodeDirs entry it maps to (by name). */
  public static final Map<String, String> HOST_PATHS =
      Map.of(
          HOST_VALIDATIONS, "validations",
          HOST_DEVICE_PLUGINS, "device-plugins",
          HOST_POD_RESOURCES, "pod-resources",
          HOST_DRIVER_ROOT, "driver",
          HOST_CDI, "cdi",
          HOST_PLUGINS_REGISTRY, "plugins_registry",
          HOST_PLUGINS, "plugins");
}
