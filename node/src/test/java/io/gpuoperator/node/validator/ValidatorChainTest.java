package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The validator chain on temp directories: markers, waits, driver and toolkit checks. */
class ValidatorChainTest {
  static final String PROFILE = TestNodes.yaml("gpus: [{model: H100-SXM5-80GB, count: 8}]\n");
  static final String CONTAINERD =
      """
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "nvidia"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
        BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"
      """;
  static final String CDI_SPEC =
      """
      cdiVersion: 0.5.0
      kind: management.nvidia.com/gpu
      devices:
        - name: all
          containerEdits:
            deviceNodes:
              - path: /dev/nvidia0
      containerEdits: {}
      """;

  @TempDir Path tmp;
  Path validations;
  Path driverRoot;
  Map<String, String> env = new HashMap<>();
  StringWriter out = new StringWriter();
  StringWriter err = new StringWriter();

  @BeforeEach
  void dirs() throws Exception {
    validations = Files.createDirectories(tmp.resolve("validations"));
    driverRoot = Files.createDirectories(tmp.resolve("driver"));
    Files.createDirectories(tmp.resolve("cdi"));
    env.put("VALIDATIONS_DIR", validations.toString());
    env.put("NVIDIA_DRIVER_ROOT", driverRoot.toString());
    env.put("GPU_BACKEND", "simulated");
    env.put("NODE_NAME", "node-a");
    env.put("RUNTIME_CONFIG", tmp.resolve("config.toml").toString());
    // Not this machine's /etc/containerd/conf.d, which a real node's toolkit may have written.
    env.put("RUNTIME_DROP_IN_CONFIG", tmp.resolve("conf.d/99-nvidia.toml").toString());
    env.put("CDI_SPEC_DIR", tmp.resolve("cdi").toString());
    env.put("SLEEP_INTERVAL", "0");
    env.put("VALIDATION_TIMEOUT", "0"); // checks fail at once unless a test allows retries
  }

  int run(String... args) {
    CommandLine cl =
        CommandLines.configure(
            new CommandLine(new ValidatorCommand(env, () -> null, DefaultBackendOpener::new)));
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void driverWritesKeyValueMarkerFromTheSimulatedDriverRoot() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), PROFILE);
    assertThat(run("--component", "driver")).isZero();
    String marker = Files.readString(validations.resolve("driver-ready"));
    assertThat(marker)
        .contains("IS_HOST_DRIVER=false\n")
        .contains("NVIDIA_DRIVER_ROOT=" + driverRoot + "\n")
        .contains("DRIVER_ROOT_CTR_PATH=" + driverRoot + "\n")
        .contains("DRIVER_VERSION=550.54.15\n")
        .contains("GPU_COUNT=8\n");
    assertThat(out.toString()).contains("driver validation passed");
  }

  @Test
  void theDevRootIsTheDriverRootsDevWhenItHasOneElseTheHosts() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), PROFILE);
    assertThat(run("--component", "driver")).isZero();
    assertThat(Files.readString(validations.resolve("driver-ready")))
        .contains("NVIDIA_DEV_ROOT=/\n")
        .contains("DEV_ROOT_CTR_PATH=/host\n");

    Files.createDirectories(driverRoot.resolve("dev"));
    assertThat(run("--component", "driver")).isZero();
    assertThat(Files.readString(validations.resolve("driver-ready")))
        .contains("NVIDIA_DEV_ROOT=" + driverRoot + "\n")
        .contains("DEV_ROOT_CTR_PATH=" + driverRoot + "\n");
  }

  @Test
  void aHostDriverMarkerSaysSoAndPointsAtTheHostMount() throws Exception {
    // No driver root given and simulated GPUs of a named profile: a driver on the host.
    env.remove("NVIDIA_DRIVER_ROOT");
    env.put("GPU_NODE_PROFILE", Files.writeString(tmp.resolve("profile.yaml"), PROFILE).toString());
    assertThat(run("--component", "driver")).as(err.toString()).isZero();
    assertThat(Files.readString(validations.resolve("driver-ready")))
        .startsWith("IS_HOST_DRIVER=true\nNVIDIA_DRIVER_ROOT=/\nDRIVER_ROOT_CTR_PATH=/host\n")
        .contains("NVIDIA_DEV_ROOT=/\n")
        .contains("DEV_ROOT_CTR_PATH=/host\n")
        .contains("GPU_COUNT=8\n");
  }

  @Test
  void failedDriverCheckRemovesAStaleMarkerAndSaysWhy() throws Exception {
    Files.writeString(validations.resolve("driver-ready"), "stale");
    assertThat(run("--component", "driver")).isEqualTo(1);
    assertThat(validations.resolve("driver-ready")).doesNotExist();
    assertThat(err.toString())
        .contains("driver validation failed")
        .contains("no node profile at " + driverRoot.resolve("node-profile.yaml"));
  }

  @Test
  void driverWithoutGpusFails() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), TestNodes.yaml("gpus: []\n"));
    assertThat(run("--component", "driver")).isEqualTo(1);
    assertThat(err.toString()).contains("no GPU found");
  }

  @Test
  void backendThatDoesNotInitialiseFailsTheDriverStep() {
    ValidatorConfig config = ValidatorConfig.fromEnv(env).withComponent(Component.DRIVER);
    Validator v =
        new Validator(
            config,
            root -> {
              throw new IllegalStateException("NVIDIA driver not loaded");
            },
            () -> null);
    assertThatThrownBy(v::run)
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("the GPU backend did not initialise: NVIDIA driver not loaded");
  }

  /** Runs the validator on another thread and checks that 1.5 s later it is still waiting. */
  private CompletableFuture<Integer> stillRunningAfter1500ms(String... args) throws Exception {
    CompletableFuture<Integer> result = CompletableFuture.supplyAsync(() -> run(args));
    Thread.sleep(1500);
    assertThat(result).isNotDone();
    return result;
  }

  @Test
  void driverWaitsForTheDriverContainer() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), PROFILE);
    env.put("SLEEP_INTERVAL", "1");
    CompletableFuture<Integer> result = stillRunningAfter1500ms("--component", "driver", "--wait");
    assertThat(validations.resolve("driver-ready")).doesNotExist();
    Files.writeString(validations.resolve(".driver-ctr-ready"), "");
    assertThat(result.get(10, TimeUnit.SECONDS)).isZero();
    assertThat(validations.resolve("driver-ready")).exists();
  }

  @Test
  void hostDriverDoesNotWaitForADriverContainer() throws Exception {
    ValidatorConfig config = ValidatorConfig.fromEnv(Map.of("NVIDIA_DRIVER_ROOT", "/"));
    assertThat(
            new Validator(config.withComponent(Component.DRIVER), r -> null, () -> null)
                .previousMarker(Component.DRIVER))
        .isNull();
    assertThat(
            new Validator(config.withComponent(Component.CUDA), r -> null, () -> null)
                .previousMarker(Component.CUDA))
        .isEqualTo("toolkit-ready");
  }

  @Test
  void toolkitChecksRuntimeConfigAndCdiSpec() throws Exception {
    Files.writeString(tmp.resolve("config.toml"), CONTAINERD);
    Files.writeString(tmp.resolve("cdi/management.nvidia.com-gpu.yaml"), CDI_SPEC);
    assertThat(run("--component", "toolkit")).isZero();
    assertThat(validations.resolve("toolkit-ready")).exists();
  }

  @Test
  void toolkitAcceptsWhatTheSimulatedToolkitLeavesOnANode() throws Exception {
    var files =
        io.gpuoperator.sim.kubelet.ToolkitFiles.forNode(
            io.gpuoperator.sim.kubelet.NodeDescription.gpuNode("g", "H100-SXM5-80GB", 8));
    Files.writeString(tmp.resolve("config.toml"), files.get("/etc/containerd/config.toml"));
    Files.writeString(
        tmp.resolve("cdi/management.nvidia.com-gpu.yaml"),
        files.get("/var/run/cdi/management.nvidia.com-gpu.yaml"));
    assertThat(run("--component", "toolkit")).as(err.toString()).isZero();
  }

  @Test
  void toolkitRetriesUntilTheRuntimeIsConfigured() throws Exception {
    env.put("VALIDATION_TIMEOUT", "20");
    env.put("SLEEP_INTERVAL", "1");
    CompletableFuture<Integer> result = stillRunningAfter1500ms("--component", "toolkit");
    Files.writeString(tmp.resolve("cdi/management.nvidia.com-gpu.yaml"), CDI_SPEC);
    Files.writeString(tmp.resolve("config.toml"), CONTAINERD);
    assertThat(result.get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void toolkitWaitsForDriverReady() throws Exception {
    Files.writeString(tmp.resolve("config.toml"), CONTAINERD);
    Files.writeString(tmp.resolve("cdi/management.nvidia.com-gpu.yaml"), CDI_SPEC);
    env.put("SLEEP_INTERVAL", "1");
    CompletableFuture<Integer> result = stillRunningAfter1500ms("--component", "toolkit", "--wait");
    Files.writeString(validations.resolve("driver-ready"), "IS_HOST_DRIVER=false\n");
    assertThat(result.get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void toolkitFailsWithoutTheNvidiaRuntime() throws Exception {
    Files.writeString(
        tmp.resolve("config.toml"), CONTAINERD.replace("runtimes.nvidia", "runtimes.other"));
    Files.writeString(tmp.resolve("cdi/management.nvidia.com-gpu.yaml"), CDI_SPEC);
    assertThat(run("--component", "toolkit")).isEqualTo(1);
    assertThat(err.toString()).contains("no runtime named 'nvidia'");
    assertThat(validations.resolve("toolkit-ready")).doesNotExist();
  }

  @Test
  void toolkitReportsAMissingConfigAndABrokenCdiSpec() throws Exception {
    assertThat(run("--component", "toolkit")).isEqualTo(1);
    // Neither the main config nor the toolkit's drop-in is there.
    assertThat(err.toString())
        .contains("config.toml or " + tmp.resolve("conf.d/99-nvidia.toml") + " does not exist");
    Files.writeString(tmp.resolve("config.toml"), CONTAINERD);
    // No CDI check unless asked for, as NVIDIA's validator (its operator sets no CDI_ENABLED
    // when CDI is off).
    assertThat(run("--component", "toolkit")).isZero();
    env.put("CDI_ENABLED", "true");
    assertThat(run("--component", "toolkit")).isEqualTo(1);
    assertThat(err.toString()).contains("no NVIDIA CDI spec");
    Files.writeString(
        tmp.resolve("cdi/nvidia.yaml"), "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n");
    assertThat(run("--component", "toolkit")).isEqualTo(1);
    assertThat(err.toString()).contains("nvidia.yaml: field devices: expected a non-empty list");
    Files.writeString(tmp.resolve("cdi/nvidia.yaml"), "cdiVersion: [\n");
    assertThat(run("--component", "toolkit")).isEqualTo(1);
    assertThat(err.toString()).contains("nvidia.yaml:2:1: not valid YAML");
  }

  @Test
  void theDropInIsTheToolkitsDefaultForContainerdOnly() {
    assertThat(ValidatorConfig.fromEnv(Map.of()).runtimeDropInConfig())
        .isEqualTo(Path.of("/etc/containerd/conf.d/99-nvidia.toml"));
    assertThat(ValidatorConfig.fromEnv(Map.of("RUNTIME", "crio")).runtimeDropInConfig()).isNull();
  }

  @Test
  void crioAndDockerConfigsAreUnderstood() throws Exception {
    Files.writeString(
        tmp.resolve("cdi/x.json"),
        "{\"cdiVersion\":\"0.6.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":[{\"name\":\"0\",\"containerEdits\":{}}]}");
    Files.writeString(
        tmp.resolve("crio.conf"),
        "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/usr/bin/nvidia-container-runtime\"\n");
    assertThat(
            run(
                "--component",
                "toolkit",
                "--runtime",
                "crio",
                "--runtime-config",
                tmp.resolve("crio.conf").toString()))
        .isZero();
    Files.writeString(
        tmp.resolve("daemon.json"),
        "{\"runtimes\":{\"nvidia\":{\"path\":\"nvidia-container-runtime\",\"args\":[]}}}");
    assertThat(
            run(
                "--component",
                "toolkit",
                "--runtime",
                "docker",
                "--runtime-config",
                tmp.resolve("daemon.json").toString()))
        .isZero();
  }

  @Test
  void badUsageIsExitCodeTwoWithTheReason() {
    assertThat(run("--component", "gpu")).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "validator: --component: unknown component \"gpu\"; expected driver, nvidia-fs,"
                + " gdrcopy, nvidia-peermem, toolkit, cuda, plugin, mofed, cc-manager, vfio-pci,"
                + " vgpu-manager, vgpu-devices or dra");
    assertThat(run()).isEqualTo(2);
    assertThat(err.toString()).contains("missing --component");
    env.put("WITH_WAIT", "maybe");
    assertThat(run("--component", "driver")).isEqualTo(2);
    assertThat(err.toString())
        .contains("validator: WITH_WAIT: expected true or false, got \"maybe\"");
  }

  @Test
  void componentsAreChainedInTheOriginalsOrder() {
    assertThat(Component.OPERATOR_CHAIN)
        .containsExactly(Component.DRIVER, Component.TOOLKIT, Component.CUDA, Component.PLUGIN);
    assertThat(Component.SANDBOX_CHAIN)
        .containsExactly(
            Component.CC_MANAGER,
            Component.VFIO_PCI,
            Component.VGPU_MANAGER,
            Component.VGPU_DEVICES);
    // With --wait, each operator step waits for the one before; the GPUDirect steps for the
    // driver; the sandbox steps and mofed for no marker (each may be skipped on a node).
    assertThat(Component.DRIVER.after()).isNull();
    assertThat(Component.TOOLKIT.after()).isEqualTo(Component.DRIVER);
    assertThat(Component.CUDA.after()).isEqualTo(Component.TOOLKIT);
    assertThat(Component.PLUGIN.after()).isEqualTo(Component.CUDA);
    for (Component c : List.of(Component.NVIDIA_FS, Component.GDRCOPY, Component.NVIDIA_PEERMEM)) {
      assertThat(c.after()).as(c.cliName()).isEqualTo(Component.DRIVER);
    }
    for (Component c : Component.SANDBOX_CHAIN) {
      assertThat(c.after()).as(c.cliName()).isNull();
    }
    assertThat(Component.MOFED.after()).isNull();
    // The DRA plugin itself waits for the driver (GPUCluster) or the toolkit (ClusterPolicy).
    assertThat(Component.DRA.after()).isEqualTo(Component.DRIVER);
  }

  @Test
  void everyComponentHasTheOriginalsNameAndMarker() {
    Map<String, String> expected = new java.util.LinkedHashMap<>();
    expected.put("driver", "driver-ready");
    expected.put("nvidia-fs", "nvidia-fs-ready");
    expected.put("gdrcopy", "gdrcopy-ready");
    expected.put("nvidia-peermem", "nvidia-peermem-ready");
    expected.put("toolkit", "toolkit-ready");
    expected.put("cuda", "cuda-ready");
    expected.put("plugin", "plugin-ready");
    expected.put("mofed", "mofed-ready");
    expected.put("cc-manager", "cc-manager-ready");
    expected.put("vfio-pci", "vfio-pci-ready");
    expected.put("vgpu-manager", "vgpu-manager-ready");
    expected.put("vgpu-devices", "vgpu-devices-ready");
    // Ours: the original's DRA validation is a DaemonSet of its own without a marker file.
    expected.put("dra", "dra-ready");
    Map<String, String> actual = new java.util.LinkedHashMap<>();
    for (Component c : Component.values()) {
      actual.put(c.cliName(), c.marker());
      assertThat(Component.parse(c.cliName())).isEqualTo(c);
    }
    assertThat(actual).containsExactlyEntriesOf(expected);
  }
}
