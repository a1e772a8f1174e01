package io.gpuoperator.node.dra;

/**
 * The names claims are written against, as NVIDIA's DRA driver for GPUs publishes them (so claims
 * written for it work unchanged), plus this plugin's files, sockets and environment variables.
 */
public final class DraNames {
  /** The driver name: {@code spec.driver} of our ResourceSlices and of allocation results. */
  public static final String DRIVER = "gpu.nvidia.com";

  /** DeviceClass of whole GPUs. */
  public static final String GPU_CLASS = "gpu.nvidia.com";

  /** DeviceClass of MIG devices. */
  public static final String MIG_CLASS = "mig.nvidia.com";

  /** The extended resource the GPU class serves pods that ask for it (v1, DRAExtendedResource). */
  public static final String GPU_EXTENDED_RESOURCE = "nvidia.com/gpu";

  // Device attributes (in the driver's domain: device.attributes['gpu.nvidia.com'].<name>).
  public static final String ATTR_TYPE = "type";
  public static final String ATTR_UUID = "uuid";
  public static final String ATTR_PARENT_UUID = "parentUUID";
  public static final String ATTR_PROFILE = "profile";
  public static final String ATTR_PRODUCT_NAME = "productName";
  public static final String ATTR_BRAND = "brand";
  public static final String ATTR_ARCHITECTURE = "architecture";
  public static final String ATTR_CUDA_COMPUTE_CAPABILITY = "cudaComputeCapability";
  public static final String ATTR_DRIVER_VERSION = "driverVersion";
  public static final String ATTR_CUDA_DRIVER_VERSION = "cudaDriverVersion";
  public static final String ATTR_INDEX = "index";
  public static final String ATTR_MINOR = "minor";

  /** Standard attributes every DRA driver may publish (Kubernetes' own domain). */
  public static final String ATTR_PCI_BUS_ID = "resource.kubernetes.io/pciBusID";

  public static final String ATTR_PCIE_ROOT = "resource.kubernetes.io/pcieRoot";

  /** {@code type} of a whole GPU. */
  public static final String TYPE_GPU = "gpu";

  /** {@code type} of a MIG device. */
  public static final String TYPE_MIG = "mig";

  // Capacities (and, for partitionable devices, the counters of a GPU's counter set).
  public static final String CAP_MEMORY = "memory";
  public static final String CAP_MULTIPROCESSORS = "multiprocessors";
  public static final String CAP_COPY_ENGINES = "copyEngines";
  public static final String CAP_DECODERS = "decoders";
  public static final String CAP_ENCODERS = "encoders";
  public static final String CAP_JPEG_ENGINES = "jpegEngines";
  public static final String CAP_OFA_ENGINES = "ofaEngines";

  /**
   * Prefix of one memory slice's capacity/counter: {@code memorySlice0} ... {@code memorySlice7}.
   */
  public static final String CAP_MEMORY_SLICE = "memorySlice";

  // Opaque configuration (config[].opaque.parameters), NVIDIA's API.
  public static final String CONFIG_API_VERSION = "resource.nvidia.com/v1beta1";
  public static final String KIND_GPU_CONFIG = "GpuConfig";
  public static final String KIND_MIG_DEVICE_CONFIG = "MigDeviceConfig";

  /** CDI vendor of the per-claim specs this plugin writes. */
  public static final String CDI_VENDOR = "k8s.gpu.nvidia.com";

  /** CDI class of the per-claim specs. */
  public static final String CDI_CLASS = "claim";

  /** The checkpoint of prepared claims, in the plugin's own directory. */
  public static final String CHECKPOINT_FILE = "checkpoint.json";

  /** The plugin's gRPC socket name, in {@code <kubelet plugins dir>/gpu.nvidia.com/}. */
  public static final String PLUGIN_SOCKET = "dra.sock";

  /** The registration socket name, in the kubelet's {@code plugins_registry} directory. */
  public static final String REGISTRATION_SOCKET = DRIVER + "-reg.sock";

  // Environment variables (NVIDIA's kubelet plugin's names where it has one).
  public static final String ENV_NODE_NAME = "NODE_NAME";
  public static final String ENV_CDI_ROOT = "CDI_ROOT";
  public static final String ENV_NVIDIA_DRIVER_ROOT = "NVIDIA_DRIVER_ROOT";
  public static final String ENV_NVIDIA_DEV_ROOT = "NVIDIA_DEV_ROOT";
  public static final String ENV_REGISTRAR_DIR = "KUBELET_REGISTRAR_DIRECTORY_PATH";
  public static final String ENV_PLUGINS_DIR = "KUBELET_PLUGINS_DIRECTORY_PATH";
  public static final String ENV_PARTITIONABLE_DEVICES = "PARTITIONABLE_DEVICES";
  public static final String ENV_RESCAN_INTERVAL = "RESCAN_INTERVAL";
  public static final String ENV_MPS_ROOT = "MPS_ROOT";

  private DraNames() {}
}
