package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.cli.CommandLines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The GPUDirect, MOFED, CC and sandbox steps on a fake system root (proc/modules, sysfs, the
 * validations directory): for each, the marker when its check passes, none when it fails, and none
 * with a clean skip when its feature is off on the node.
 */
class ValidatorComponentsTest {
  static final String MODULES =
      "nvidia_uvm 1437696 2 - Live 0x0000000000000000\nnvidia 56717312 1 - Live 0x0\n";

  @TempDir Path tmp;
  Path root;
  Path validations;
  Path driverRoot;
  Map<String, String> env = new HashMap<>();
  Map<String, String> labels = new HashMap<>();

  @BeforeEach
  void dirs() throws Exception {
    root = Files.createDirectories(tmp.resolve("root"));
    validations = Files.createDirectories(tmp.resolve("validations"));
    driverRoot = Files.createDirectories(tmp.resolve("driver"));
    Files.writeString(driverRoot.resolve("node-profile.yaml"), ValidatorChainTest.PROFILE);
    Files.createDirectories(root.resolve("proc"));
    Files.writeString(root.resolve("proc/modules"), MODULES);
    Files.createDirectories(root.resolve("sys/bus/pci/devices"));
    env.put("VALIDATIONS_DIR", validations.toString());
    env.put("NVIDIA_DRIVER_ROOT", driverRoot.toString());
    env.put("GPU_BACKEND", "simulated");
    env.put("NODE_NAME", "node-a");
    env.put("VALIDATOR_SYSTEM_ROOT", root.toString());
    env.put("DISABLE_DEV_CHAR_SYMLINK_CREATION", "true");
    env.put("SLEEP_INTERVAL", "0");
    env.put("VALIDATION_TIMEOUT", "5");
  }

  /** What the DRA driver published for this node, as its ResourceSlices' device names. */
  java.util.List<String> draDevices = new java.util.concurrent.CopyOnWriteArrayList<>();

  Verdict run(Component c) throws Exception {
    ValidatorConfig config = ValidatorConfig.fromEnv(env).withComponent(c);
    return new Validator(
            config,
            new DefaultBackendOpener(config),
            () -> null,
            () -> Map.copyOf(labels),
            () -> java.util.List.copyOf(draDevices))
        .run();
  }

  /** {@link #run} on another thread, for the steps that wait. */
  private CompletableFuture<Verdict> runAsync(Component c) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return run(c);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  void module(String name) throws Exception {
    Files.writeString(root.resolve("proc/modules"), name + " 16384 0 - Live 0x0\n", APPEND);
  }

  static final java.nio.file.OpenOption APPEND = java.nio.file.StandardOpenOption.APPEND;

  /** An NVIDIA 3D controller at {@code address}, bound to {@code driver} (null: none). */
  Path gpu(String address, String driver) throws Exception {
    Path dev = Files.createDirectories(root.resolve("sys/bus/pci/devices").resolve(address));
    Files.writeString(dev.resolve("vendor"), "0x10de\n");
    Files.writeString(dev.resolve("class"), "0x030200\n");
    if (driver != null) {
      Files.createSymbolicLink(dev.resolve("driver"), Path.of("../../../bus/pci/drivers", driver));
    }
    return dev;
  }

  void marker(String name) throws Exception {
    Files.writeString(validations.resolve(name), "stale");
  }

  // --- nvidia-fs, gdrcopy, nvidia-peermem ---

  @Test
  void nvidiaFsIsSkippedWithGdsOffAndAStaleMarkerGoes() throws Exception {
    marker("nvidia-fs-ready");
    Verdict v = run(Component.NVIDIA_FS);
    assertThat(v.isSkipped()).isTrue();
    assertThat(v.skipped()).contains("GPUDirect Storage is off").contains("GDS_ENABLED");
    assertThat(validations.resolve("nvidia-fs-ready")).doesNotExist();
  }

  @Test
  void nvidiaFsChecksTheModuleWhenGdsIsOn() throws Exception {
    env.put("GDS_ENABLED", "true");
    assertThatThrownBy(() -> run(Component.NVIDIA_FS))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("kernel module nvidia_fs (GPUDirect Storage) is not loaded");
    assertThat(validations.resolve("nvidia-fs-ready")).doesNotExist();
    module("nvidia_fs");
    assertThat(run(Component.NVIDIA_FS).marker()).isEqualTo("nvidia-fs-ready");
    assertThat(validations.resolve("nvidia-fs-ready")).exists();
  }

  @Test
  void gdrcopyIsOnByTheDriverContainersFlags() throws Exception {
    assertThat(run(Component.GDRCOPY).isSkipped()).isTrue();
    Files.writeString(
        validations.resolve(".driver-ctr-ready"),
        "GDRCOPY_ENABLED: true\nGDS_ENABLED: false\nGPU_DIRECT_RDMA_ENABLED: false\n");
    assertThatThrownBy(() -> run(Component.GDRCOPY)).hasMessageContaining("gdrdrv");
    module("gdrdrv");
    run(Component.GDRCOPY);
    assertThat(validations.resolve("gdrcopy-ready")).exists();
  }

  @Test
  void nvidiaPeermemFollowsGpuDirectRdma() throws Exception {
    assertThat(run(Component.NVIDIA_PEERMEM).skipped()).contains("GPUDirect RDMA is off");
    env.put("GPU_DIRECT_RDMA_ENABLED", "true");
    module("nvidia_peermem");
    run(Component.NVIDIA_PEERMEM);
    assertThat(validations.resolve("nvidia-peermem-ready")).exists();
  }

  @Test
  void theDriverStepChecksTheModulesItsContainerEnabled() throws Exception {
    Files.writeString(
        validations.resolve(".driver-ctr-ready"),
        "GDRCOPY_ENABLED: false\nGDS_ENABLED: true\nGPU_DIRECT_RDMA_ENABLED: true\n");
    marker("gdrcopy-ready");
    module("nvidia_fs");
    assertThatThrownBy(() -> run(Component.DRIVER))
        .hasMessageContaining("nvidia_peermem (GPUDirect RDMA) is not loaded");
    assertThat(validations.resolve("driver-ready")).doesNotExist();
    module("nvidia_peermem");
    run(Component.DRIVER);
    assertThat(validations.resolve("driver-ready")).exists();
    assertThat(validations.resolve("nvidia-fs-ready")).exists();
    assertThat(validations.resolve("nvidia-peermem-ready")).exists();
    assertThat(validations.resolve("gdrcopy-ready")).as("GDRCopy off: stale").doesNotExist();
  }

  @Test
  void aGpuDirectStepWithWaitWaitsForTheDriverThenTheModule() throws Exception {
    env.put("GDS_ENABLED", "true");
    env.put("WITH_WAIT", "true");
    env.put("SLEEP_INTERVAL", "1");
    env.put("VALIDATION_TIMEOUT", "20");
    CompletableFuture<Verdict> result = runAsync(Component.NVIDIA_FS);
    Thread.sleep(1500);
    assertThat(result).as("waits for driver-ready").isNotDone();
    Files.writeString(validations.resolve("driver-ready"), "IS_HOST_DRIVER=false\n");
    Thread.sleep(1500);
    assertThat(result).as("retries until nvidia_fs is loaded").isNotDone();
    module("nvidia_fs");
    assertThat(result.get(10, TimeUnit.SECONDS).marker()).isEqualTo("nvidia-fs-ready");
  }

  // --- mofed ---

  @Test
  void mofedIsSkippedWithoutRdmaOrWithoutAMellanoxDevice() throws Exception {
    marker("mofed-ready");
    assertThat(run(Component.MOFED).skipped()).contains("GPU_DIRECT_RDMA_ENABLED");
    env.put("GPU_DIRECT_RDMA_ENABLED", "true");
    assertThat(run(Component.MOFED).skipped())
        .contains("feature.node.kubernetes.io/pci-15b3.present=true");
    assertThat(validations.resolve("mofed-ready")).doesNotExist();
  }

  @Test
  void mofedWaitsForTheNetworkOperatorsDriverOrTheHostsModule() throws Exception {
    env.put("GPU_DIRECT_RDMA_ENABLED", "true");
    labels.put("feature.node.kubernetes.io/pci-15b3.present", "true");
    assertThatThrownBy(() -> run(Component.MOFED))
        .hasMessageContaining("no " + root.resolve("run/mellanox/drivers/.driver-ready"));
    Files.createDirectories(root.resolve("run/mellanox/drivers"));
    Files.writeString(root.resolve("run/mellanox/drivers/.driver-ready"), "");
    run(Component.MOFED);
    assertThat(validations.resolve("mofed-ready")).exists();

    env.put("USE_HOST_MOFED", "true");
    assertThatThrownBy(() -> run(Component.MOFED))
        .hasMessageContaining("mlx5_core (MOFED on the host) is not loaded");
    assertThat(validations.resolve("mofed-ready")).doesNotExist();
    module("mlx5_core");
    run(Component.MOFED);
    assertThat(validations.resolve("mofed-ready")).exists();
  }

  // --- cc-manager ---

  @Test
  void ccManagerPassesAtOnceOnANodeThatIsNotCcCapable() throws Exception {
    run(Component.CC_MANAGER);
    assertThat(Files.readString(validations.resolve("cc-manager-ready"))).isEmpty();
  }

  @Test
  void ccManagerWaitsForTheCcModeOnACapableNode() throws Exception {
    labels.put("nvidia.com/cc.capable", "true");
    marker("cc-manager-ready");
    assertThatThrownBy(() -> run(Component.CC_MANAGER))
        .hasMessageContaining("no " + validations.resolve(".cc-manager-ctr-ready"));
    assertThat(validations.resolve("cc-manager-ready")).doesNotExist();
    Files.writeString(validations.resolve(".cc-manager-ctr-ready"), "");
    run(Component.CC_MANAGER);
    assertThat(validations.resolve("cc-manager-ready")).exists();
  }

  // --- vfio-pci ---

  @Test
  void vfioPciIsSkippedOnAContainerNodeAndRecordsTheWorkload() throws Exception {
    labels.put("nvidia.com/gpu.workload.config", "container");
    marker("vfio-pci-ready");
    assertThat(run(Component.VFIO_PCI).skipped())
        .isEqualTo("the node's workload is container, not vm-passthrough");
    assertThat(Files.readString(validations.resolve("workload-type"))).isEqualTo("container\n");
    assertThat(validations.resolve("vfio-pci-ready")).doesNotExist();
  }

  @Test
  void vfioPciNeedsEveryGpuBoundToAVfioDriver() throws Exception {
    // No label: the default workload, vm-passthrough as in the original.
    gpu("0000:3b:00.0", "vfio-pci");
    gpu("0000:86:00.0", "nvidia");
    gpu("0000:af:00.0", null);
    assertThatThrownBy(() -> run(Component.VFIO_PCI))
        .hasMessageContaining("GPUs not bound to vfio-pci or nvgrace_gpu_vfio_pci")
        .hasMessageContaining("0000:86:00.0 (nvidia)")
        .hasMessageContaining("0000:af:00.0 (no driver)")
        .hasMessageNotContaining("3b:00.0");
    Files.createSymbolicLink(
        root.resolve("sys/bus/pci/devices/0000:af:00.0/driver"),
        Path.of("../../../bus/pci/drivers/vfio-pci"));
    assertThat(Files.readString(validations.resolve("workload-type")))
        .isEqualTo("vm-passthrough\n");
    assertThat(validations.resolve("vfio-pci-ready")).doesNotExist();
    Files.delete(root.resolve("sys/bus/pci/devices/0000:86:00.0/driver"));
    Files.createSymbolicLink(
        root.resolve("sys/bus/pci/devices/0000:86:00.0/driver"),
        Path.of("../../../bus/pci/drivers/nvgrace_gpu_vfio_pci"));
    run(Component.VFIO_PCI);
    assertThat(validations.resolve("vfio-pci-ready")).exists();
  }

  @Test
  void vfioPciWithoutAnyGpuFails() {
    assertThatThrownBy(() -> run(Component.VFIO_PCI))
        .hasMessageContaining("no NVIDIA GPU in " + root.resolve("sys/bus/pci/devices"));
  }

  @Test
  void theDefaultWorkloadComesFromTheOperatorAndAnUnknownLabelFallsBackToIt() throws Exception {
    env.put("DEFAULT_GPU_WORKLOAD_CONFIG", "container");
    assertThat(run(Component.VFIO_PCI).isSkipped()).isTrue();
    labels.put("nvidia.com/gpu.workload.config", "vm-passthru");
    assertThat(run(Component.VFIO_PCI).isSkipped()).isTrue();
    assertThat(Files.readString(validations.resolve("workload-type"))).isEqualTo("container\n");
    env.put("DEFAULT_GPU_WORKLOAD_CONFIG", "vm");
    assertThatThrownBy(() -> ValidatorConfig.fromEnv(env))
        .hasMessageContaining("DEFAULT_GPU_WORKLOAD_CONFIG")
        .hasMessageContaining("expected container, vm-passthrough or vm-vgpu");
  }

  // --- vgpu-manager, vgpu-devices ---

  @Test
  void vgpuStepsAreSkippedOffVmVgpuNodes() throws Exception {
    marker("vgpu-manager-ready");
    marker("host-vgpu-manager-ready");
    marker("vgpu-devices-ready");
    assertThat(run(Component.VGPU_MANAGER).skipped()).contains("not vm-vgpu");
    assertThat(run(Component.VGPU_DEVICES).skipped()).contains("not vm-vgpu");
    assertThat(validations.resolve("vgpu-manager-ready")).doesNotExist();
    assertThat(validations.resolve("host-vgpu-manager-ready")).doesNotExist();
    assertThat(validations.resolve("vgpu-devices-ready")).doesNotExist();
  }

  @Test
  void vgpuManagerNeedsItsDriverAndParentDevices() throws Exception {
    labels.put("nvidia.com/gpu.workload.config", "vm-vgpu");
    Path dev = gpu("0000:3b:00.0", "nvidia");
    assertThatThrownBy(() -> run(Component.VGPU_MANAGER))
        .hasMessageContaining("no mdev parent devices")
        .hasMessageContaining("no NVIDIA GPU with SR-IOV");
    Files.writeString(dev.resolve("sriov_totalvfs"), "16\n");
    Files.writeString(dev.resolve("sriov_numvfs"), "4\n");
    assertThatThrownBy(() -> run(Component.VGPU_MANAGER))
        .hasMessageContaining("SR-IOV virtual functions not all enabled: [0000:3b:00.0 (4/16)]");
    Files.writeString(dev.resolve("sriov_numvfs"), "16\n");
    assertThat(run(Component.VGPU_MANAGER).marker()).isEqualTo("vgpu-manager-ready");
    assertThat(validations.resolve("vgpu-manager-ready")).exists();
    assertThat(validations.resolve("host-vgpu-manager-ready")).doesNotExist();
  }

  @Test
  void vgpuManagerOnTheHostWritesTheHostMarker() throws Exception {
    labels.put("nvidia.com/gpu.workload.config", "vm-vgpu");
    Files.createDirectories(root.resolve("sys/class/mdev_bus/0000:3b:00.0"));
    env.put("NVIDIA_DRIVER_ROOT", "/");
    env.put(
        "GPU_NODE_PROFILE",
        Files.writeString(tmp.resolve("p.yaml"), ValidatorChainTest.PROFILE).toString());
    assertThat(run(Component.VGPU_MANAGER).marker()).isEqualTo("host-vgpu-manager-ready");
    assertThat(validations.resolve("vgpu-manager-ready")).doesNotExist();
  }

  @Test
  void vgpuManagerFailsWhenItsDriverSeesNoGpu() throws Exception {
    labels.put("nvidia.com/gpu.workload.config", "vm-vgpu");
    Files.createDirectories(root.resolve("sys/class/mdev_bus/0000:3b:00.0"));
    Files.delete(driverRoot.resolve("node-profile.yaml"));
    assertThatThrownBy(() -> run(Component.VGPU_MANAGER))
        .hasMessageContaining("no node profile at " + driverRoot.resolve("node-profile.yaml"));
  }

  @Test
  void vgpuDevicesNeedsAnNvidiaMediatedDevice() throws Exception {
    labels.put("nvidia.com/gpu.workload.config", "vm-vgpu");
    Path mdevs = Files.createDirectories(root.resolve("sys/bus/mdev/devices"));
    Path other = Files.createDirectories(root.resolve("sys/devices/pci0000:00/0000:5e:00.0/u-1"));
    Files.writeString(other.getParent().resolve("vendor"), "0x8086\n");
    Files.createSymbolicLink(mdevs.resolve("u-1"), other);
    assertThatThrownBy(() -> run(Component.VGPU_DEVICES))
        .hasMessageContaining("no NVIDIA vGPU (mdev) device in " + mdevs);
    assertThat(validations.resolve("vgpu-devices-ready")).doesNotExist();
    Path vgpu = Files.createDirectories(root.resolve("sys/devices/pci0000:00/0000:3b:00.0/u-2"));
    Files.writeString(vgpu.getParent().resolve("vendor"), "0x10de\n");
    Files.createSymbolicLink(mdevs.resolve("u-2"), vgpu);
    run(Component.VGPU_DEVICES);
    assertThat(validations.resolve("vgpu-devices-ready")).exists();
    assertThat(Files.readString(validations.resolve("workload-type"))).isEqualTo("vm-vgpu\n");
  }

  // --- the command ---

  // --- dra ---

  @Test
  void draIsSkippedWhereTheDraDriverIsNotDeployedAndAStaleMarkerGoes() throws Exception {
    marker("dra-ready");
    draDevices.add("gpu-0");
    Verdict v = run(Component.DRA);
    assertThat(v.isSkipped()).isTrue();
    assertThat(v.skipped())
        .isEqualTo(
            "the DRA driver is not deployed on this node (nvidia.com/gpu.deploy.dra-driver is not"
                + " set)");
    assertThat(validations.resolve("dra-ready")).doesNotExist();
    labels.put("nvidia.com/gpu.deploy.dra-driver", "false");
    assertThat(run(Component.DRA).skipped()).endsWith("(nvidia.com/gpu.deploy.dra-driver=false)");
  }

  @Test
  void draNeedsTheNodesGpusPublishedByTheDraDriver() throws Exception {
    labels.put("nvidia.com/gpu.deploy.dra-driver", "true");
    assertThatThrownBy(() -> run(Component.DRA))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining(
            "node node-a: the DRA driver gpu.nvidia.com has published no device in a"
                + " ResourceSlice for it");
    assertThat(validations.resolve("dra-ready")).doesNotExist();

    draDevices.addAll(java.util.List.of("gpu-0", "gpu-1"));
    Verdict v = run(Component.DRA);
    assertThat(v.isSkipped()).isFalse();
    assertThat(validations.resolve("dra-ready")).hasContent("gpu-0\ngpu-1\n");
  }

  @Test
  void draWithWaitWaitsForTheDriverThenForTheSlices() throws Exception {
    labels.put("nvidia.com/gpu.deploy.dra-driver", "true");
    env.put("WITH_WAIT", "true");
    env.put("VALIDATION_TIMEOUT", "20");
    CompletableFuture<Verdict> step = runAsync(Component.DRA);
    Thread.sleep(300);
    assertThat(step).isNotDone();
    marker("driver-ready");
    Thread.sleep(300);
    assertThat(step).isNotDone();
    draDevices.add("gpu-0");
    assertThat(step.get(15, TimeUnit.SECONDS).marker()).isEqualTo("dra-ready");
    assertThat(validations.resolve("dra-ready")).hasContent("gpu-0\n");
  }

  @Test
  void theCommandSaysASkippedStepWasSkippedAndExitsZero() {
    StringWriter out = new StringWriter();
    CommandLine cl =
        CommandLines.configure(
            new CommandLine(new ValidatorCommand(env, () -> null, DefaultBackendOpener::new)));
    cl.setOut(new PrintWriter(out, true));
    assertThat(cl.execute("--component", "nvidia-fs")).isZero();
    assertThat(out.toString()).startsWith("nvidia-fs validation skipped: GPUDirect Storage is off");
    assertThat(validations.resolve("nvidia-fs-ready")).doesNotExist();
  }
}
