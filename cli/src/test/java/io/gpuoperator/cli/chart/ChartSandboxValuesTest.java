package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.IgnoredFields;
import io.gpuoperator.operator.validation.Violation;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The sandbox values reach the ClusterPolicy as the original's chart (v26.7) sets them: its
 * defaults (VFIO manager, both device plugins, vGPU device manager and CC manager on, the vGPU
 * manager off without a licensee's image), so that turning {@code sandboxWorkloads.enabled} on
 * deploys the states of the chosen mode, and the vGPU device manager without a ConfigMap of layouts
 * is reported rather than silently missing.
 */
class ChartSandboxValuesTest {
  /** The operator as the chart runs it: this binary, with its agents. */
  private static final OperatorConfig CONFIG =
      OperatorConfig.fromEnv(Map.of())
          .withAgents(
              OperatorConfig.subcommandsOf(GpuOperatorCommand.commandLine().getCommandSpec()));

  private static final ClusterFacts FACTS =
      new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04");

  private static ClusterPolicy policy(Map<String, Object> set) {
    var objects = HelmChart.objects(HelmChart.template(set));
    return HelmChart.convert(
        HelmChart.find(objects, "ClusterPolicy", "cluster-policy"), ClusterPolicy.class);
  }

  private static Set<String> daemonSets(ClusterPolicy policy) {
    Set<String> out = new TreeSet<>();
    for (RenderedOperand op : Operands.renderAll(policy, FACTS, CONFIG)) {
      for (HasMetadata o : op.objects()) {
        if (o instanceof DaemonSet) {
          out.add(o.getMetadata().getName());
        }
      }
    }
    return out;
  }

  @Test
  void theDefaultsAreTheOriginalChartsAndDeployNothingWithoutSandboxWorkloads() {
    ClusterPolicy policy = policy(Map.of());
    var spec = policy.getSpec();
    assertThat(spec.sandboxWorkloads.enabled).isFalse();
    assertThat(spec.vfioManager.enabled).isTrue();
    assertThat(spec.vfioManager.driverManager.version).isEqualTo("v0.12.0");
    assertThat(spec.sandboxDevicePlugin.enabled).isTrue();
    assertThat(spec.kataSandboxDevicePlugin.enabled).isTrue();
    assertThat(spec.vgpuDeviceManager.enabled).isTrue();
    assertThat(spec.vgpuDeviceManager.config.defaultEntry).isEqualTo("default");
    assertThat(spec.ccManager.enabled).isTrue();
    assertThat(spec.ccManager.defaultMode).isEqualTo("on");
    assertThat(spec.vgpuManager.enabled).isFalse();
    assertThat(daemonSets(policy))
        .noneMatch(n -> n.contains("sandbox") || n.contains("vfio") || n.contains("vgpu"))
        .doesNotContain("nvidia-cc-manager");
    assertThat(IgnoredFields.of(policy)).isEmpty();
  }

  @Test
  void sandboxWorkloadsDeployTheKubevirtStates() {
    ClusterPolicy policy = policy(Map.of("sandboxWorkloads.enabled", true));
    assertThat(daemonSets(policy))
        .contains(
            "nvidia-vfio-manager",
            "nvidia-sandbox-device-plugin-daemonset",
            "nvidia-sandbox-validator")
        .doesNotContain(
            "nvidia-kata-sandbox-device-plugin-daemonset",
            "nvidia-cc-manager",
            "nvidia-vgpu-manager-daemonset",
            "nvidia-vgpu-device-manager");
    assertThat(IgnoredFields.of(policy))
        .extracting(Violation::path)
        .containsExactly("spec.vgpuDeviceManager.config.name");
  }

  @Test
  void kataModeDeploysTheKataPluginAndTheCcManager() {
    ClusterPolicy policy =
        policy(Map.of("sandboxWorkloads.enabled", true, "sandboxWorkloads.mode", "kata"));
    assertThat(daemonSets(policy))
        .contains(
            "nvidia-vfio-manager",
            "nvidia-kata-sandbox-device-plugin-daemonset",
            "nvidia-cc-manager",
            "nvidia-sandbox-validator")
        .doesNotContain("nvidia-sandbox-device-plugin-daemonset");
  }

  @Test
  void aLicenseesVgpuManagerImageDeploysTheVgpuManager() {
    ClusterPolicy policy =
        policy(
            Map.of(
                "sandboxWorkloads.enabled",
                true,
                "vgpuManager.enabled",
                true,
                "vgpuManager.repository",
                "registry.example.com/vgpu",
                "vgpuManager.version",
                "580.65.05"));
    assertThat(daemonSets(policy)).contains("nvidia-vgpu-manager-daemonset");
  }
}
