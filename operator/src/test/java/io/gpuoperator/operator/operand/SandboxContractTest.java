package io.gpuoperator.operator.operand;

import static io.gpuoperator.operator.operand.ContractAssertions.FIELD;
import static io.gpuoperator.operator.operand.ContractAssertions.container;
import static io.gpuoperator.operator.operand.ContractAssertions.driverManagerEnv;
import static io.gpuoperator.operator.operand.ContractAssertions.expect;
import static io.gpuoperator.operator.operand.ContractAssertions.expectEnv;
import static io.gpuoperator.operator.operand.ContractAssertions.mounts;
import static io.gpuoperator.operator.operand.ContractAssertions.value;
import static io.gpuoperator.operator.operand.ContractAssertions.volumes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.validation.PolicyValidationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sandbox (VM workload) states rendered for NVIDIA's images, checked field by field against the
 * original's contract as operand-contracts 1.2, 1.3 and 3.13 state it (transcribed here, not taken
 * from our output): which states render in which mode, each container's image, command, args and
 * env in order, its privileges, its mounts and the pod's volumes, and the pod settings of the
 * reference's DaemonSet table. The inputs are the golden cases {@code sandbox-kubevirt} (every
 * image NVIDIA's, custom rootFS) and {@code sandbox-kata}.
 */
class SandboxContractTest {
  private static final Map<String, List<String>> KEYS =
      Map.of("vgpu-modprobe", List.of("nvidia.conf"), "vgpu-layouts", List.of("config.yaml"));
  private static final String VALIDATOR = "nvcr.io/nvidia/gpu-operator:v26.7.0";
  private static final String DRIVER_MANAGER =
      "nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.12.0";

  /** A cluster whose ConfigMaps hold the vGPU manager's and vGPU device manager's keys. */
  private static final ClusterFacts FACTS =
      new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu24.04")
          .withConfigMapKeys(KEYS);

  private static Map<String, DaemonSet> render(String caseName, boolean agents) throws IOException {
    OperatorConfig config = agents ? Policies.config() : OperatorConfig.fromEnv(Map.of());
    return daemonSets(Operands.renderAll(goldenCase(caseName), FACTS, config));
  }

  /** The policy's operands on {@link #FACTS} with the operator's default configuration. */
  private static List<RenderedOperand> renderAll(ClusterPolicy policy) {
    return Operands.renderAll(policy, FACTS, OperatorConfig.fromEnv(Map.of()));
  }

  /** The policy of a golden case ({@code src/test/resources/golden/cases/<name>.yaml}). */
  private static ClusterPolicy goldenCase(String name) throws IOException {
    return Policies.parse(
        Files.readString(Path.of("src/test/resources/golden/cases/" + name + ".yaml")));
  }

  private static Map<String, DaemonSet> daemonSets(List<RenderedOperand> rendered) {
    Map<String, DaemonSet> out = new LinkedHashMap<>();
    for (RenderedOperand op : rendered) {
      for (HasMetadata o : op.objects()) {
        if (o instanceof DaemonSet ds) {
          out.put(ds.getMetadata().getName(), ds);
        }
      }
    }
    return out;
  }

  @Test
  void kubevirtModeRendersTheKubevirtStatesOnly() throws IOException {
    var ds = render("sandbox-kubevirt", false);
    assertThat(ds.keySet())
        .contains(
            "nvidia-vgpu-manager-daemonset",
            "nvidia-vgpu-device-manager",
            "nvidia-sandbox-validator",
            "nvidia-vfio-manager",
            "nvidia-sandbox-device-plugin-daemonset")
        .doesNotContain("nvidia-kata-sandbox-device-plugin-daemonset", "nvidia-cc-manager")
        // state-kata-manager is off in v26.7.
        .doesNotContain("nvidia-kata-manager");
  }

  @Test
  void vgpuDeviceManager() throws IOException {
    DaemonSet ds = render("sandbox-kubevirt", false).get("nvidia-vgpu-device-manager");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container wait = container(pod, "vgpu-manager-validation");
    assertThat(wait.getImage()).isEqualTo(VALIDATOR);
    assertThat(wait.getCommand()).containsExactly("sh", "-c");
    // Waits for the vGPU manager's marker, or the one of a vGPU manager installed on the host.
    assertThat(wait.getArgs().get(0))
        .contains("/run/nvidia/validations/vgpu-manager-ready")
        .contains("/run/nvidia/validations/host-vgpu-manager-ready")
        .contains("sleep 5");
    assertThat(wait.getSecurityContext().getPrivileged()).isTrue();
    assertThat(wait.getSecurityContext().getRunAsUser()).isZero();
    assertThat(mounts(wait))
        .containsExactly("run-nvidia-validations:/run/nvidia/validations:Bidirectional");
    Container main = container(pod, "nvidia-vgpu-device-manager");
    assertThat(main.getImage()).isEqualTo("nvcr.io/nvidia/cloud-native/vgpu-device-manager:v0.5.0");
    expect(main, List.of(), List.of());
    // The base env, HOST_ROOT (custom rootFS), the section's env, then DEFAULT_VGPU_CONFIG.
    expectEnv(
        main,
        "NAMESPACE",
        FIELD,
        "NODE_NAME",
        FIELD,
        "CONFIG_FILE",
        "/vgpu-config/config.yaml",
        "HOST_ROOT",
        "/host-root",
        "VGPU_DM_LOG",
        "debug",
        "DEFAULT_VGPU_CONFIG",
        "A100-4C");
    assertThat(main.getSecurityContext().getPrivileged()).isTrue();
    assertThat(mounts(main))
        .containsExactly(
            "vgpu-config:/vgpu-config",
            "host-sys:/sys",
            "host-root:/host:HostToContainer",
            "driver-install-dir:/driver-root:HostToContainer");
    assertThat(volumes(pod))
        .containsExactly(
            "vgpu-config:configMap:vgpu-layouts",
            "host-sys:/sys:Directory",
            "host-root:/host-root",
            "driver-install-dir:/run/nvidia/driver:DirectoryOrCreate",
            "run-nvidia-validations:/run/nvidia/validations:DirectoryOrCreate");
    assertThat(pod.getRuntimeClassName()).isNull();
    expectDeployLabel(pod, "vgpu-device-manager");
    assertThat(ds.getMetadata().getAnnotations())
        .containsEntry("openshift.io/scc", "nvidia-vgpu-device-manager");
  }

  @Test
  void vgpuDeviceManagerNeedsTheLayoutsOfTheConfigMapItNames() throws IOException {
    ClusterPolicy policy = goldenCase("sandbox-kubevirt");
    OperatorConfig config = OperatorConfig.fromEnv(Map.of());
    var missing =
        new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu24.04")
            .withConfigMapKeys(Map.of("vgpu-modprobe", List.of("nvidia.conf")));
    assertThatThrownBy(() -> Operands.renderAll(policy, missing, config))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("spec.vgpuDeviceManager.config.name")
        .hasMessageContaining("ConfigMap 'vgpu-layouts' not found");
    var noKey =
        missing.withConfigMapKeys(
            Map.of(
                "vgpu-modprobe", List.of("nvidia.conf"), "vgpu-layouts", List.of("layouts.yaml")));
    assertThatThrownBy(() -> Operands.renderAll(policy, noKey, config))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("has no key 'config.yaml'");
    // Without a name (or with the original's default one, which is not shipped): not deployed.
    policy.getSpec().vgpuDeviceManager.config.name = "default-vgpu-devices-config";
    assertThat(daemonSets(Operands.renderAll(policy, missing, config)))
        .doesNotContainKey("nvidia-vgpu-device-manager")
        .containsKey("nvidia-vgpu-manager-daemonset");
  }

  @Test
  void kataModeRendersTheKataStatesOnly() throws IOException {
    var ds = render("sandbox-kata", true);
    assertThat(ds.keySet())
        .contains(
            "nvidia-sandbox-validator",
            "nvidia-vfio-manager",
            "nvidia-kata-sandbox-device-plugin-daemonset",
            "nvidia-cc-manager")
        .doesNotContain(
            "nvidia-sandbox-device-plugin-daemonset",
            "nvidia-vgpu-manager-daemonset",
            "nvidia-kata-manager");
  }

  @Test
  void nothingSandboxRendersWithoutSandboxWorkloads() throws IOException {
    ClusterPolicy policy = goldenCase("sandbox-kubevirt");
    policy.getSpec().sandboxWorkloads.enabled = false;
    assertThat(daemonSets(renderAll(policy)).keySet())
        .noneMatch(n -> n.contains("sandbox") || n.contains("vfio") || n.contains("vgpu"));
  }

  /**
   * The env of the sandbox validator's step {@code <component>-validation} in the kubevirt case:
   * WITH_WAIT, its COMPONENT, NODE_NAME, HOST_ROOT (custom rootFS), the default workload, then
   * {@code own} (the section's env of that step).
   */
  private static void expectStepEnv(PodSpec pod, String component, String... own) {
    expectEnv(
        container(pod, component + "-validation"),
        ContractAssertions.concat(
            List.of(
                "WITH_WAIT",
                "true",
                "COMPONENT",
                component,
                "NODE_NAME",
                FIELD,
                "HOST_ROOT",
                "/host-root",
                "DEFAULT_GPU_WORKLOAD_CONFIG",
                "vm-passthrough"),
            own));
  }

  /** The pod runs on the nodes labelled {@code nvidia.com/gpu.deploy.<operand>=true}, only. */
  private static void expectDeployLabel(PodSpec pod, String operand) {
    assertThat(pod.getNodeSelector())
        .containsExactly(Map.entry("nvidia.com/gpu.deploy." + operand, "true"));
  }

  /**
   * The k8s-driver-manager init container of the vGPU and VFIO managers: the driver's base env
   * ({@code podEviction} as ENABLE_GPU_POD_EVICTION), then HOST_ROOT (custom rootFS), and its
   * mounts.
   */
  private static Container expectDriverManager(PodSpec pod, String podEviction) {
    Container manager = container(pod, "k8s-driver-manager");
    assertThat(manager.getImage()).isEqualTo(DRIVER_MANAGER);
    expect(manager, List.of("driver-manager"), List.of("uninstall_driver"));
    expectEnv(
        manager,
        driverManagerEnv(podEviction, "OPERATOR_NAMESPACE", FIELD, "HOST_ROOT", "/host-root"));
    assertThat(mounts(manager))
        .containsExactly(
            "run-nvidia:/run/nvidia:Bidirectional",
            "host-root:/host:ro:HostToContainer",
            "host-sys:/sys");
    return manager;
  }

  @Test
  void vgpuManager() throws IOException {
    DaemonSet ds = render("sandbox-kubevirt", false).get("nvidia-vgpu-manager-daemonset");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    // The base env, HOST_ROOT (custom rootFS), then vgpuManager.driverManager.env in place.
    Container manager = expectDriverManager(pod, "true");
    assertThat(manager.getImagePullPolicy()).isEqualTo("Always");
    assertThat(manager.getSecurityContext().getPrivileged()).isTrue();

    Container main = container(pod, "nvidia-vgpu-manager-ctr");
    // The OS tag is appended as for the driver.
    assertThat(main.getImage())
        .isEqualTo("registry.example.com/vgpu/vgpu-manager:580.65.05-ubuntu24.04");
    expect(main, List.of("nvidia-driver"), List.of("init"));
    expectEnv(main, "HOST_ROOT", "/host-root", "VGPU_LOG", "debug");
    assertThat(main.getSecurityContext().getPrivileged()).isTrue();
    assertThat(main.getSecurityContext().getSeLinuxOptions().getLevel()).isEqualTo("s0");
    assertThat(mounts(main))
        .containsExactly(
            "run-nvidia:/run/nvidia:Bidirectional",
            "host-os-release:/host-etc/os-release",
            "vfio:/dev/vfio",
            "cgroup:/sys/fs/cgroup",
            "var-log:/var/log",
            "dev-log:/dev/log",
            "firmware-search-path:/sys/module/firmware_class/parameters/path",
            "nv-firmware:/lib/firmware",
            "vgpu-modprobe:/drivers/nvidia.conf:ro");
    assertThat(volumes(pod))
        .containsExactly(
            "run-nvidia:/run/nvidia:DirectoryOrCreate",
            "host-os-release:/etc/os-release",
            "cgroup:/sys/fs/cgroup:Directory",
            "vfio:/dev/vfio:Directory",
            "host-root:/host-root",
            "host-sys:/sys:Directory",
            "var-log:/var/log:Directory",
            "dev-log:/dev/log",
            "firmware-search-path:/sys/module/firmware_class/parameters/path",
            "nv-firmware:/run/nvidia/driver/lib/firmware:DirectoryOrCreate",
            "vgpu-modprobe:configMap:vgpu-modprobe");
    assertThat(pod.getHostPID()).isTrue();
    assertThat(pod.getHostIPC()).isTrue();
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(120L);
    assertThat(pod.getRuntimeClassName()).isNull();
    assertThat(pod.getServiceAccountName()).isEqualTo("nvidia-vgpu-manager");
    expectDeployLabel(pod, "vgpu-manager");
    assertThat(pod.getImagePullSecrets())
        .extracting(r -> r.getName())
        .containsExactly("vgpu-registry");
    assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("kubectl.kubernetes.io/default-container", "nvidia-vgpu-manager-ctr");
    assertThat(ds.getMetadata().getAnnotations())
        .containsEntry("openshift.io/scc", "nvidia-vgpu-manager");
    assertThat(ds.getSpec().getSelector().getMatchLabels())
        .containsExactly(Map.entry("app", "nvidia-vgpu-manager-daemonset"));
  }

  @Test
  void vgpuManagerWithoutAnImageIsRefusedNamingTheField() throws IOException {
    ClusterPolicy policy = goldenCase("sandbox-kubevirt");
    policy.getSpec().vgpuManager.repository = null;
    policy.getSpec().vgpuManager.image = null;
    policy.getSpec().vgpuManager.version = null;
    assertThatThrownBy(() -> renderAll(policy))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("spec.vgpuManager.image")
        .hasMessageContaining("no image configured");
  }

  @Test
  void sandboxValidator() throws IOException {
    DaemonSet ds = render("sandbox-kubevirt", false).get("nvidia-sandbox-validator");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    // ccManager.enabled is false: the cc-manager step is removed.
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly(
            "vfio-pci-validation", "vgpu-manager-validation", "vgpu-devices-validation");
    for (Container c : pod.getInitContainers()) {
      assertThat(c.getImage()).as(c.getName()).isEqualTo(VALIDATOR);
      expect(c, List.of("sh", "-c"), List.of("nvidia-validator"));
      assertThat(c.getSecurityContext().getRunAsUser()).isZero();
      assertThat(c.getSecurityContext().getPrivileged()).isTrue();
    }
    expectStepEnv(pod, "vfio-pci", "VFIO_CHECK", "strict");
    expectStepEnv(pod, "vgpu-manager", "VGPU_CHECK", "1");
    expectStepEnv(pod, "vgpu-devices");
    assertThat(container(pod, "vgpu-devices-validation").getSecurityContext().getSeLinuxOptions())
        .isNull();
    assertThat(mounts(container(pod, "vfio-pci-validation")))
        .containsExactly(
            "host-root:/host:ro:HostToContainer",
            "run-nvidia-validations:/run/nvidia/validations:Bidirectional");
    assertThat(mounts(container(pod, "vgpu-manager-validation")))
        .containsExactly(
            "host-root:/host:ro:HostToContainer",
            "driver-install-path:/run/nvidia/driver:HostToContainer",
            "run-nvidia-validations:/run/nvidia/validations:Bidirectional");
    Container main = container(pod, "nvidia-sandbox-validator");
    assertThat(main.getImage()).isEqualTo(VALIDATOR);
    assertThat(String.join(" ", main.getArgs())).contains("all validations are successful");
    assertThat(main.getSecurityContext().getPrivileged()).isTrue();
    assertThat(main.getSecurityContext().getRunAsUser()).isZero();
    assertThat(main.getLifecycle().getPreStop().getExec().getCommand())
        .containsExactly("/bin/sh", "-c", "rm -f /run/nvidia/validations/*");
    assertThat(volumes(pod))
        .containsExactly(
            "run-nvidia-validations:/run/nvidia/validations:DirectoryOrCreate",
            "driver-install-path:/run/nvidia/driver",
            "host-root:/host-root");
    assertThat(pod.getRuntimeClassName()).isNull();
    assertThat(ds.getSpec().getSelector().getMatchLabels())
        .containsOnly(
            Map.entry("app", "nvidia-sandbox-validator"),
            Map.entry("app.kubernetes.io/part-of", "gpu-operator"));
    expectDeployLabel(pod, "sandbox-validator");
  }

  @Test
  void sandboxValidatorKeepsItsCcManagerStepWithTheCcManager() throws IOException {
    PodSpec pod =
        render("sandbox-kata", true)
            .get("nvidia-sandbox-validator")
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly(
            "cc-manager-validation",
            "vfio-pci-validation",
            "vgpu-manager-validation",
            "vgpu-devices-validation");
    // Our validator image (the default) runs each step as its validator subcommand.
    Container cc = container(pod, "cc-manager-validation");
    assertThat(cc.getCommand()).isNull();
    assertThat(cc.getArgs()).containsExactly("validator");
    expectEnv(cc, "WITH_WAIT", "true", "COMPONENT", "cc-manager", "NODE_NAME", FIELD);
    // No defaultWorkload: container.
    assertThat(value(container(pod, "vfio-pci-validation"), "DEFAULT_GPU_WORKLOAD_CONFIG"))
        .isEqualTo("container");
  }

  @Test
  void vfioManager() throws IOException {
    DaemonSet ds = render("sandbox-kubevirt", false).get("nvidia-vfio-manager");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container manager = expectDriverManager(pod, "false");
    // vfioManager.resources replace the base's, on the driver manager too.
    assertThat(manager.getResources().getLimits()).containsOnlyKeys("memory");
    Container main = container(pod, "nvidia-vfio-manager");
    // The chart's VFIO manager image is the driver manager's.
    assertThat(main.getImage()).isEqualTo(DRIVER_MANAGER);
    assertThat(main.getCommand()).containsExactly("/bin/sh", "-c");
    assertThat(main.getArgs()).hasSize(1);
    assertThat(main.getArgs().get(0)).startsWith("vfio-manage bind --all").contains("sleep");
    // HOST_ROOT=/host, overwritten with the host's path under a custom rootFS (the original's
    // quirk), then vfioManager.env.
    expectEnv(main, "HOST_ROOT", "/host-root", "VFIO_DEBUG", "1");
    assertThat(main.getResources().getLimits().get("memory").toString()).isEqualTo("300Mi");
    assertThat(main.getSecurityContext().getPrivileged()).isTrue();
    assertThat(main.getSecurityContext().getSeLinuxOptions().getLevel()).isEqualTo("s0");
    assertThat(main.getLifecycle().getPreStop().getExec().getCommand())
        .containsExactly("/bin/sh", "-c", "vfio-manage unbind --all");
    assertThat(mounts(main))
        .containsExactly("host-sys:/sys", "host-lib-modules:/lib/modules:ro", "host-root:/host");
    assertThat(volumes(pod))
        .containsExactly(
            "host-sys:/sys:Directory",
            "host-lib-modules:/lib/modules:Directory",
            "run-nvidia:/run/nvidia:DirectoryOrCreate",
            "host-root:/host-root");
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(30L);
    assertThat(ds.getMetadata().getLabels()).containsEntry("app", "nvidia-vfio-manager");
    assertThat(ds.getSpec().getSelector().getMatchLabels())
        .containsExactly(Map.entry("name", "nvidia-vfio-manager"));
    expectDeployLabel(pod, "vfio-manager");
  }

  @Test
  void kubevirtDevicePlugin() throws IOException {
    DaemonSet ds = render("sandbox-kubevirt", false).get("nvidia-sandbox-device-plugin-daemonset");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly("vfio-pci-validation", "vgpu-devices-validation");
    expectWait(container(pod, "vfio-pci-validation"), "vm-passthrough", "vfio-pci-ready");
    expectWait(container(pod, "vgpu-devices-validation"), "vm-vgpu", "vgpu-devices-ready");
    // validator.vfioPCI.env belongs to the sandbox validator's step, not to this wait.
    expectEnv(container(pod, "vfio-pci-validation"), "NVIDIA_VISIBLE_DEVICES", "void");
    Container main = container(pod, "nvidia-sandbox-device-plugin-ctr");
    assertThat(main.getImage()).isEqualTo("nvcr.io/nvidia/kubevirt-gpu-device-plugin:v1.6.0");
    expect(main, List.of(), List.of("--verbose"));
    expectEnv(main, "NODE_NAME", FIELD, "POD_NAMESPACE", FIELD);
    assertThat(main.getSecurityContext().getPrivileged()).isTrue();
    assertThat(mounts(main))
        .containsExactly(
            "device-plugin:/var/lib/kubelet/device-plugins",
            "vfio:/dev/vfio",
            "cdi-root:/var/run/cdi");
    assertThat(volumes(pod))
        .containsExactly(
            "device-plugin:/var/lib/kubelet/device-plugins",
            "run-nvidia-validations:/run/nvidia/validations:DirectoryOrCreate",
            "vfio:/dev/vfio",
            "cdi-root:/var/run/cdi:DirectoryOrCreate");
    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
    assertThat(pod.getRuntimeClassName()).isNull();
    expectDeployLabel(pod, "sandbox-device-plugin");
    assertThat(ds.getMetadata().getAnnotations())
        .containsEntry("openshift.io/scc", "nvidia-sandbox-device-plugin");
  }

  @Test
  void kataDevicePlugin() throws IOException {
    DaemonSet ds = render("sandbox-kata", true).get("nvidia-kata-sandbox-device-plugin-daemonset");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly("vfio-pci-validation");
    Container main = container(pod, "nvidia-kata-sandbox-device-plugin-ctr");
    assertThat(main.getImage())
        .isEqualTo("nvcr.io/nvidia/cloud-native/nvidia-sandbox-device-plugin:v0.0.5");
    expect(main, List.of(), List.of());
    expectEnv(
        main,
        "NODE_NAME",
        FIELD,
        "POD_NAMESPACE",
        FIELD,
        "POD_SERVICE_ACCOUNT",
        FIELD,
        "P_GPU_ALIAS",
        "pgpu");
    assertThat(main.getEnv().get(2).getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("spec.serviceAccountName");
    assertThat(mounts(main))
        .containsExactly("device-plugin:/var/lib/kubelet/device-plugins", "cdi-root:/var/run/cdi");
    expectDeployLabel(pod, "kata-sandbox-device-plugin");
  }

  @Test
  void ccManager() throws IOException {
    DaemonSet ds = render("sandbox-kata", true).get("nvidia-cc-manager");
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getInitContainers()).isNullOrEmpty();
    Container main = container(pod, "nvidia-cc-manager");
    assertThat(main.getImage()).isEqualTo("nvcr.io/nvidia/cloud-native/k8s-cc-manager:v0.4.3");
    expect(main, List.of(), List.of());
    expectEnv(main, "NODE_NAME", FIELD, "NVIDIA_VISIBLE_DEVICES", "void", "DEFAULT_CC_MODE", "on");
    assertThat(main.getResources().getLimits().get("memory").toString()).isEqualTo("200Mi");
    assertThat(main.getResources().getRequests().get("cpu").toString()).isEqualTo("100m");
    assertThat(main.getSecurityContext().getSeLinuxOptions().getLevel()).isEqualTo("s0");
    assertThat(main.getLifecycle().getPreStop().getExec().getCommand())
        .containsExactly("/bin/rm", "-f", "/run/nvidia/validations/.cc-manager-ctr-ready");
    assertThat(mounts(main)).containsExactly("host-sys:/sys", "run-nvidia:/run/nvidia");
    assertThat(volumes(pod))
        .containsExactly("host-sys:/sys:Directory", "run-nvidia:/run/nvidia:DirectoryOrCreate");
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(30L);
    assertThat(ds.getSpec().getSelector().getMatchLabels())
        .containsExactly(Map.entry("name", "nvidia-cc-manager"));
  }

  @Test
  void theDefaultWorkloadFollowsThePolicy() throws IOException {
    ClusterPolicy policy = goldenCase("sandbox-kata");
    policy.getSpec().sandboxWorkloads.defaultWorkload = SandboxWorkloadsSpec.Workload.VM_VGPU;
    var ds =
        daemonSets(
            Operands.renderAll(
                policy,
                new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04"),
                Policies.config()));
    PodSpec pod = ds.get("nvidia-sandbox-validator").getSpec().getTemplate().getSpec();
    for (String step : SandboxValidatorTransform.WORKLOAD_STEPS) {
      assertThat(value(container(pod, step), "DEFAULT_GPU_WORKLOAD_CONFIG")).isEqualTo("vm-vgpu");
    }
  }

  /** A wait on the validator's workload-type, then on the marker only for that workload. */
  private static void expectWait(Container c, String workload, String marker) {
    expect(c, List.of("sh", "-c"), c.getArgs());
    String script = c.getArgs().get(0);
    assertThat(script)
        .contains("until [ -f /run/nvidia/validations/workload-type ]")
        .contains("!= \"" + workload + "\" ]; then")
        .contains("exit 0")
        .contains("until [ -f /run/nvidia/validations/" + marker + " ]");
    assertThat(script.indexOf("workload-type ]")).isLessThan(script.indexOf(marker));
    assertThat(c.getImage()).isEqualTo(VALIDATOR);
    assertThat(c.getSecurityContext().getRunAsUser()).isZero();
    assertThat(mounts(c))
        .containsExactly("run-nvidia-validations:/run/nvidia/validations:HostToContainer");
  }
}
