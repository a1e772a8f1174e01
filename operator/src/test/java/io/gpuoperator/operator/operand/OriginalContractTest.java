package io.gpuoperator.operator.operand;

import static io.gpuoperator.operator.operand.ContractAssertions.ANY;
import static io.gpuoperator.operator.operand.ContractAssertions.FIELD;
import static io.gpuoperator.operator.operand.ContractAssertions.concat;
import static io.gpuoperator.operator.operand.ContractAssertions.container;
import static io.gpuoperator.operator.operand.ContractAssertions.driverManagerEnv;
import static io.gpuoperator.operator.operand.ContractAssertions.expect;
import static io.gpuoperator.operator.operand.ContractAssertions.expectEnv;
import static io.gpuoperator.operator.operand.ContractAssertions.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The original chart's default ClusterPolicy (NVIDIA's images, on RHEL 9 GPU nodes with containerd)
 * rendered by us, checked container by container against the original's contract as the
 * operand-contracts reference states it (transcribed here, not taken from our own output): command,
 * args and every env variable in order, plus the pod settings the reference lists for this default
 * rendering.
 */
class OriginalContractTest {
  private static final String VALIDATOR = "nvcr.io/nvidia/gpu-operator:main-latest";
  private static final String TOOLKIT_READY_LOOP =
      "until [ -f /run/nvidia/validations/toolkit-ready ]; do echo waiting for nvidia container"
          + " stack to be setup; sleep 5; done";
  private static Map<String, DaemonSet> daemonSets;
  private static List<HasMetadata> all;

  @BeforeAll
  static void render() throws IOException {
    ClusterPolicy policy =
        Policies.parse(
            Files.readString(Path.of("src/test/resources/golden/cases/chart-defaults.yaml")));
    // The chart runs the operator with its own VALIDATOR_IMAGE; our agents play no part.
    ClusterFacts facts = new ClusterFacts("v1.36.3", "containerd", false, 2, true, "rhel9");
    daemonSets = new LinkedHashMap<>();
    all = new ArrayList<>();
    for (RenderedOperand op : Operands.renderAll(policy, facts, Policies.config())) {
      for (HasMetadata o : op.objects()) {
        all.add(o);
        if (o instanceof DaemonSet ds) {
          daemonSets.put(ds.getMetadata().getName(), ds);
        }
      }
      if (op.enabled() && op.rendering().kind() != Rendering.Kind.NONE) {
        assertThat(op.rendering().kind()).as(op.name()).isEqualTo(Rendering.Kind.NVIDIA);
      }
    }
  }

  @Test
  void theDefaultDaemonSetsAreTheOriginals() {
    // Standalone DCGM and the node-status exporter are off in the chart; no sandbox operands.
    assertThat(daemonSets.keySet())
        .containsExactlyInAnyOrderElementsOf(Policies.DEFAULT_DAEMONSETS);
  }

  @Test
  void driver() {
    PodSpec pod = pod("nvidia-driver-daemonset");
    Container manager = container(pod, "k8s-driver-manager");
    expect(manager, List.of("driver-manager"), List.of("uninstall_driver"));
    expectEnv(
        manager,
        driverManagerEnv(
            "true",
            "DRAIN_USE_FORCE",
            "false",
            "DRAIN_POD_SELECTOR_LABEL",
            "",
            "DRAIN_TIMEOUT_SECONDS",
            "0s",
            "DRAIN_DELETE_EMPTYDIR_DATA",
            "false",
            "OPERATOR_NAMESPACE",
            FIELD,
            "DRIVER_CONFIG_DIGEST",
            ANY));
    Container driver = container(pod, "nvidia-driver-ctr");
    assertThat(driver.getImage()).isEqualTo("nvcr.io/nvidia/driver:595.91.07-rhel9");
    expect(driver, List.of("nvidia-driver"), List.of("init"));
    expectEnv(
        driver,
        "NODE_NAME",
        FIELD,
        "NODE_IP",
        FIELD,
        "KERNEL_MODULE_TYPE",
        "auto",
        "DRIVER_CONFIG_DIGEST",
        ANY);
    assertThat(value(driver, "DRIVER_CONFIG_DIGEST"))
        .matches("\\d+")
        .isEqualTo(value(manager, "DRIVER_CONFIG_DIGEST"));
    assertThat(driver.getStartupProbe().getExec().getCommand())
        .containsExactly("sh", "/usr/local/bin/startup-probe.sh");
    // RHEL with containerd, not OpenShift, runfile: the host's entitlements.
    assertThat(driver.getVolumeMounts())
        .extracting(m -> m.getName() + ":" + m.getMountPath())
        .contains(
            "subscription-config-0:/run/secrets/etc-pki-entitlement",
            "subscription-config-1:/run/secrets/redhat.repo",
            "subscription-config-2:/run/secrets/rhsm",
            "run-nvidia-fabricmanager:/run/nvidia-fabricmanager",
            "nv-firmware:/lib/firmware",
            "driver-startup-probe-script:/usr/local/bin/startup-probe.sh");
    assertThat(pod.getContainers())
        .extracting(Container::getName)
        .containsExactly("nvidia-driver-ctr");
    assertThat(daemonSets.get("nvidia-driver-daemonset").getSpec().getUpdateStrategy().getType())
        .isEqualTo("OnDelete");
    assertThat(pod.getRuntimeClassName()).isNull();
    assertThat(names(all)).contains("ConfigMap/nvidia-driver-startup-probe");
  }

  @Test
  void containerToolkit() {
    PodSpec pod = pod("nvidia-container-toolkit-daemonset");
    Container validation = container(pod, "driver-validation");
    expect(validation, List.of("sh", "-c"), List.of("nvidia-validator"));
    expectEnv(validation, "WITH_WAIT", "true", "COMPONENT", "driver", "OPERATOR_NAMESPACE", FIELD);
    assertThat(validation.getImage()).isEqualTo(VALIDATOR);
    assertThat(validation.getSecurityContext().getRunAsUser()).isZero();
    Container toolkit = container(pod, "nvidia-container-toolkit-ctr");
    expect(toolkit, List.of("/bin/sh", "-c"), List.of("/bin/entrypoint.sh"));
    expectEnv(
        toolkit,
        "ROOT",
        "/usr/local/nvidia",
        "NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND",
        "management.nvidia.com/gpu",
        "NVIDIA_VISIBLE_DEVICES",
        "void",
        "TOOLKIT_PID_FILE",
        "/run/nvidia/toolkit/toolkit.pid",
        "NRI_NAMESPACE",
        FIELD,
        "CDI_ENABLED",
        "true",
        "NVIDIA_RUNTIME_SET_AS_DEFAULT",
        "false",
        "NVIDIA_CONTAINER_RUNTIME_MODE",
        "cdi",
        "CRIO_CONFIG_MODE",
        "config",
        "RUNTIME",
        "containerd",
        "CONTAINERD_RUNTIME_CLASS",
        "nvidia",
        "RUNTIME_CONFIG",
        "/runtime/config-dir/config.toml",
        "CONTAINERD_CONFIG",
        "/runtime/config-dir/config.toml",
        "RUNTIME_DROP_IN_CONFIG",
        "/runtime/config-dir.d/99-nvidia.toml",
        "RUNTIME_DROP_IN_CONFIG_HOST_PATH",
        "/etc/containerd/conf.d/99-nvidia.toml",
        "RUNTIME_SOCKET",
        "/runtime/sock-dir/containerd.sock",
        "CONTAINERD_SOCKET",
        "/runtime/sock-dir/containerd.sock");
    assertThat(toolkit.getVolumeMounts())
        .extracting(m -> m.getName() + ":" + m.getMountPath())
        .contains(
            "nvidia-container-toolkit-entrypoint:/bin/entrypoint.sh",
            "containerd-config:/runtime/config-dir/",
            "containerd-drop-in-config:/runtime/config-dir.d/",
            "containerd-socket:/runtime/sock-dir/");
    assertThat(names(all)).contains("ConfigMap/nvidia-container-toolkit-entrypoint");
    assertThat(pod.getRuntimeClassName()).isNull();
  }

  @Test
  void operatorValidator() {
    PodSpec pod = pod("nvidia-operator-validator");
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly(
            "driver-validation", "toolkit-validation", "cuda-validation", "plugin-validation");
    for (Container c : pod.getInitContainers()) {
      expect(c, List.of("sh", "-c"), List.of("nvidia-validator"));
      assertThat(c.getImage()).isEqualTo(VALIDATOR);
      assertThat(c.getSecurityContext().getRunAsUser()).as(c.getName()).isZero();
    }
    expectEnv(
        container(pod, "driver-validation"),
        "WITH_WAIT",
        "true",
        "COMPONENT",
        "driver",
        "OPERATOR_NAMESPACE",
        FIELD);
    expectEnv(
        container(pod, "toolkit-validation"),
        "NVIDIA_VISIBLE_DEVICES",
        "all",
        "WITH_WAIT",
        "false",
        "COMPONENT",
        "toolkit");
    expectEnv(
        container(pod, "cuda-validation"),
        workloadStepEnv("WITH_WAIT", "false", "COMPONENT", "cuda"));
    expectEnv(
        container(pod, "plugin-validation"),
        workloadStepEnv(
            "COMPONENT",
            "plugin",
            "WITH_WAIT",
            "false",
            "WITH_WORKLOAD",
            "false",
            "MIG_STRATEGY",
            "single"));
    Container main = container(pod, "nvidia-operator-validator");
    expect(
        main,
        List.of("sh", "-c"),
        List.of("echo all validations are successful; while true; do sleep 86400; done"));
    expectEnv(main);
    assertThat(main.getSecurityContext().getRunAsUser()).isZero();
    assertThat(main.getLifecycle().getPreStop().getExec().getCommand())
        .containsExactly("sh", "-c", "rm -f /run/nvidia/validations/*-ready");
  }

  /**
   * A validator step that runs a workload pod (cuda, plugin): its own env, then where the pod runs
   * and with which image.
   */
  private static String[] workloadStepEnv(String... own) {
    return concat(
        List.of(own),
        "NODE_NAME",
        FIELD,
        "OPERATOR_NAMESPACE",
        FIELD,
        "VALIDATOR_IMAGE",
        VALIDATOR,
        "VALIDATOR_IMAGE_PULL_POLICY",
        "IfNotPresent",
        "VALIDATOR_RUNTIME_CLASS",
        "nvidia");
  }

  @Test
  void devicePluginAndMpsControlDaemon() {
    PodSpec pod = pod("nvidia-device-plugin-daemonset");
    expectToolkitWait(pod, TOOLKIT_READY_LOOP);
    // No devicePlugin.config: no config-manager.
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly("toolkit-validation");
    assertThat(pod.getContainers())
        .extracting(Container::getName)
        .containsExactly("nvidia-device-plugin");
    Container plugin = container(pod, "nvidia-device-plugin");
    expect(plugin, List.of("/bin/sh", "-c"), List.of("/bin/entrypoint.sh"));
    expectEnv(
        plugin,
        "PASS_DEVICE_SPECS",
        "true",
        "FAIL_ON_INIT_ERROR",
        "true",
        "DEVICE_LIST_STRATEGY",
        "cdi-annotations,cdi-cri",
        "DEVICE_ID_STRATEGY",
        "uuid",
        "NVIDIA_VISIBLE_DEVICES",
        "all",
        "NVIDIA_DRIVER_CAPABILITIES",
        "all",
        "MPS_ROOT",
        "/run/nvidia/mps",
        "MIG_STRATEGY",
        "single",
        "NVIDIA_MIG_MONITOR_DEVICES",
        "all",
        "CDI_ENABLED",
        "true",
        "CDI_ANNOTATION_PREFIX",
        "cdi.k8s.io/",
        "NVIDIA_CDI_HOOK_PATH",
        "/usr/local/nvidia/toolkit/nvidia-cdi-hook");
    assertThat(names(all)).contains("ConfigMap/nvidia-device-plugin-entrypoint");

    PodSpec mps = pod("nvidia-device-plugin-mps-control-daemon");
    assertThat(mps.getServiceAccountName()).isEqualTo("nvidia-device-plugin");
    assertThat(mps.getNodeSelector()).containsEntry("nvidia.com/mps.capable", "true");
    expect(
        container(mps, "mps-control-daemon-mounts"),
        List.of("mps-control-daemon", "mount-shm"),
        List.of());
    Container daemon = container(mps, "mps-control-daemon-ctr");
    expect(daemon, List.of("mps-control-daemon"), List.of());
    expectEnv(
        daemon,
        "NODE_NAME",
        FIELD,
        "NVIDIA_VISIBLE_DEVICES",
        "all",
        "NVIDIA_DRIVER_CAPABILITIES",
        "compute,utility",
        "MIG_STRATEGY",
        "single",
        "NVIDIA_MIG_MONITOR_DEVICES",
        "all");
  }

  @Test
  void dcgmExporter() {
    PodSpec pod = pod("nvidia-dcgm-exporter");
    expectToolkitWait(pod, TOOLKIT_READY_LOOP);
    Container exporter = container(pod, "nvidia-dcgm-exporter");
    expect(exporter, List.of(), List.of());
    expectEnv(
        exporter,
        "DCGM_EXPORTER_LISTEN",
        ":9400",
        "DCGM_EXPORTER_KUBERNETES",
        "true",
        "DCGM_EXPORTER_COLLECTORS",
        "/etc/dcgm-exporter/dcp-metrics-included.csv",
        "NODE_NAME",
        FIELD);
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    // The ServiceMonitor needs the Prometheus operator's CRD, which these facts lack.
    assertThat(names(all)).doesNotContain("ServiceMonitor/nvidia-dcgm-exporter");
  }

  @Test
  void gpuFeatureDiscovery() {
    PodSpec pod = pod("gpu-feature-discovery");
    expectToolkitWait(pod, TOOLKIT_READY_LOOP);
    Container gfd = container(pod, "gpu-feature-discovery");
    expect(gfd, List.of("gpu-feature-discovery"), List.of());
    expectEnv(
        gfd,
        "GFD_SLEEP_INTERVAL",
        "60s",
        "GFD_FAIL_ON_INIT_ERROR",
        "true",
        "NAMESPACE",
        FIELD,
        "NODE_NAME",
        FIELD,
        "POD_NAME",
        FIELD,
        "MIG_STRATEGY",
        "single",
        "NVIDIA_MIG_MONITOR_DEVICES",
        "all");
  }

  @Test
  void migManager() {
    PodSpec pod = pod("nvidia-mig-manager");
    expectToolkitWait(
        pod,
        "until [ -f /run/nvidia/validations/toolkit-ready ]; do echo waiting for nvidia container"
            + " toolkit to be setup; sleep 5; done");
    Container mig = container(pod, "nvidia-mig-manager");
    expect(mig, List.of("/bin/sh", "-c"), List.of("/bin/entrypoint.sh"));
    // The chart names default-mig-parted-config explicitly, which the original treats as custom.
    expectEnv(
        mig,
        "NODE_NAME",
        FIELD,
        "POD_NAME",
        FIELD,
        "POD_NAMESPACE",
        FIELD,
        "GPU_CLIENTS_FILE",
        "/gpu-clients/clients.yaml",
        "DEFAULT_GPU_CLIENTS_NAMESPACE",
        FIELD,
        "CONFIG_FILE",
        "/mig-parted-config/config.yaml",
        "CDI_ENABLED",
        "true",
        "NVIDIA_CDI_HOOK_PATH",
        "/usr/local/nvidia/toolkit/nvidia-cdi-hook");
    assertThat(pod.getHostPID()).isTrue();
    assertThat(pod.getHostIPC()).isTrue();
    assertThat(names(all))
        .contains(
            "ConfigMap/default-mig-parted-config",
            "ConfigMap/default-gpu-clients",
            "ConfigMap/nvidia-mig-manager-entrypoint");
  }

  @Test
  void podSettingsOfTheDefaultRendering() {
    for (String name :
        List.of(
            "nvidia-device-plugin-daemonset",
            "nvidia-device-plugin-mps-control-daemon",
            "gpu-feature-discovery",
            "nvidia-dcgm-exporter",
            "nvidia-mig-manager",
            "nvidia-operator-validator")) {
      assertThat(pod(name).getRuntimeClassName()).as(name).isEqualTo("nvidia");
    }
    daemonSets.forEach(
        (name, ds) -> {
          for (var labels :
              List.of(
                  ds.getMetadata().getLabels(),
                  ds.getSpec().getTemplate().getMetadata().getLabels())) {
            assertThat(labels)
                .as(name)
                .containsEntry("helm.sh/chart", "gpu-operator-v1.0.0-devel")
                .containsEntry("app.kubernetes.io/managed-by", "gpu-operator");
          }
          if (!name.equals("nvidia-driver-daemonset")) {
            var strategy = ds.getSpec().getUpdateStrategy();
            assertThat(strategy.getType()).as(name).isEqualTo("RollingUpdate");
            assertThat(strategy.getRollingUpdate().getMaxUnavailable().getIntVal()).isEqualTo(1);
          }
          assertThat(ds.getSpec().getTemplate().getSpec().getPriorityClassName())
              .isEqualTo("system-node-critical");
        });
  }

  private static void expectToolkitWait(PodSpec pod, String loop) {
    Container c = container(pod, "toolkit-validation");
    expect(c, List.of("sh", "-c"), List.of(loop));
    assertThat(c.getImage()).isEqualTo(VALIDATOR);
    assertThat(c.getSecurityContext().getRunAsUser()).isZero();
  }

  private static PodSpec pod(String daemonSet) {
    assertThat(daemonSets).containsKey(daemonSet);
    return daemonSets.get(daemonSet).getSpec().getTemplate().getSpec();
  }

  private static List<String> names(List<HasMetadata> objects) {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }
}
