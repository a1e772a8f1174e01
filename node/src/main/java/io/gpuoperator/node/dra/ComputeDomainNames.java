package io.gpuoperator.node.dra;

/**
 * The names of NVIDIA's ComputeDomain DRA driver as its kubelet plugin publishes and prepares them
 * (so their DeviceClasses, claim templates and IMEX daemon work unchanged), plus this plugin's
 * files for it.
 */
public final class ComputeDomainNames {
  /** The driver name: {@code spec.driver} of its ResourceSlices and allocation results. */
  public static final String DRIVER = "compute-domain.nvidia.com";

  // Device attributes (device.attributes['compute-domain.nvidia.com'].<name>).
  public static final String ATTR_TYPE = "type";
  public static final String ATTR_ID = "id";

  /** {@code type} of an IMEX channel device, {@code channel-<id>}. */
  public static final String TYPE_CHANNEL = "channel";

  /** {@code type} of the IMEX daemon's device, {@code daemon-<id>}. */
  public static final String TYPE_DAEMON = "daemon";

  /**
   * The IMEX channels the driver offers ({@code 0} to {@code 2047}), as NVIDIA's plugin assumes; a
   * claim with {@code allocationMode: All} gets every one.
   */
  public static final int MAX_CHANNELS = 2048;

  /** On a node where a claim of the domain is prepared: the domain's UID (NVIDIA's key). */
  public static final String NODE_LABEL = "resource.nvidia.com/computeDomain";

  /** The kernel's name of the IMEX channels' character device in {@code /proc/devices}. */
  public static final String CHANNELS_DEVICE = "nvidia-caps-imex-channels";

  /** Where the channel device nodes are: {@code channel<n>} below it, minor {@code n}. */
  public static final String CHANNELS_DIR = "/dev/" + CHANNELS_DEVICE;

  // Opaque configuration, NVIDIA's resource.nvidia.com/v1beta1 kinds.
  public static final String KIND_CHANNEL_CONFIG = "ComputeDomainChannelConfig";
  public static final String KIND_DAEMON_CONFIG = "ComputeDomainDaemonConfig";

  /** {@code allocationMode} of a channel config: channel 0 only, or every channel. */
  public static final String ALLOCATION_SINGLE = "Single";

  public static final String ALLOCATION_ALL = "All";

  /** CDI vendor of the per-claim specs ({@code k8s.compute-domain.nvidia.com/claim}). */
  public static final String CDI_VENDOR = "k8s." + DRIVER;

  /** Where the IMEX daemon's per-domain directory appears in its container. */
  public static final String DAEMON_CONTAINER_DIR = "/imexd";

  /** The IMEX configuration template in a domain's directory, which NVIDIA's daemon renders. */
  public static final String DAEMON_CONFIG_TEMPLATE = "imexd.cfg.tmpl";

  /** The per-domain directories of the IMEX daemons, in this driver's plugin directory. */
  public static final String DOMAINS_DIR = "domains";

  /** The daemon container's variables (NVIDIA's names; its compute-domain-daemon reads them). */
  public static final String ENV_CLIQUE_ID = "CLIQUE_ID";

  public static final String ENV_DOMAIN_UUID = "COMPUTE_DOMAIN_UUID";
  public static final String ENV_DOMAIN_NAME = "COMPUTE_DOMAIN_NAME";
  public static final String ENV_DOMAIN_NAMESPACE = "COMPUTE_DOMAIN_NAMESPACE";

  /** This plugin's variable that serves the driver (the operator sets it with ComputeDomains). */
  public static final String ENV_COMPUTE_DOMAINS = "COMPUTE_DOMAINS";

  /** Where the kernel lists its character devices' majors. */
  public static final String ENV_PROC_DEVICES = "PROC_DEVICES";

  private ComputeDomainNames() {}

  /** The device name of channel {@code n}. */
  public static String channel(int n) {
    return TYPE_CHANNEL + "-" + n;
  }

  /** The device name of daemon {@code n}. */
  public static String daemon(int n) {
    return TYPE_DAEMON + "-" + n;
  }
}
