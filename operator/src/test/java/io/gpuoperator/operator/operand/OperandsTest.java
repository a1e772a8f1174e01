package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.validation.PolicyValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OperandsTest {

  private static List<RenderedOperand> render(ClusterPolicy p) {
    return Operands.renderAll(p, Policies.facts(), Policies.config());
  }

  private static Map<String, DaemonSet> daemonSets(List<RenderedOperand> ops) {
    return ops.stream()
        .flatMap(o -> o.objects().stream())
        .filter(DaemonSet.class::isInstance)
        .map(DaemonSet.class::cast)
        .collect(Collectors.toMap(d -> d.getMetadata().getName(), d -> d));
  }

  @Test
  void operandsAreInDeploymentOrder() {
    assertThat(Operands.ordered().stream().map(Operand::name))
        .containsExactly(
            "pre-requisites",
            "operator-metrics",
            "driver",
            "container-toolkit",
            "operator-validator",
            "device-plugin",
            "mps-control-daemon",
            "dra-driver",
            "dcgm",
            "dcgm-exporter",
            "gpu-feature-discovery",
            "mig-manager",
            "node-status-exporter",
            "vgpu-manager",
            "vgpu-device-manager",
            "sandbox-validator",
            "vfio-manager",
            "sandbox-device-plugin",
            "kata-sandbox-device-plugin",
            "cc-manager");
  }

  @Test
  void sampleRendersEveryEnabledOperandWithTheOriginalsNames() {
    var ops = render(Policies.sample());
    List<String> enabled =
        ops.stream().filter(RenderedOperand::enabled).map(RenderedOperand::name).toList();
    // The two operands without a DaemonSet, then those of the original's default DaemonSets.
    assertThat(enabled)
        .startsWith("pre-requisites", "operator-metrics")
        .containsSubsequence(Policies.DEFAULT_DAEMONSET_OPERANDS)
        .hasSize(2 + Policies.DEFAULT_DAEMONSET_OPERANDS.size());
    // Every other operand, and node-agents mode (off), is listed disabled, in order, so that a
    // DaemonSet left from one is deleted.
    List<String> disabled = new ArrayList<>();
    Operands.ordered().stream()
        .map(Operand::name)
        .filter(name -> !enabled.contains(name))
        .forEach(disabled::add);
    disabled.add("node-agents");
    assertThat(ops.stream().filter(o -> !o.enabled()).map(RenderedOperand::name))
        .containsExactlyElementsOf(disabled);
    assertThat(daemonSets(ops).keySet())
        .containsExactlyInAnyOrderElementsOf(Policies.DEFAULT_DAEMONSETS);
  }

  @Test
  void everyDaemonSetIsSelectedByItsDeployLabelToleratesTheTaintAndIsNodeCritical() {
    var policy = Policies.minimal();
    policy.getSpec().nodeStatusExporter = new io.gpuoperator.api.common.ComponentSpec();
    policy.getSpec().nodeStatusExporter.enabled = true;
    for (RenderedOperand op : render(policy)) {
      for (HasMetadata o : op.objects()) {
        assertThat(o.getMetadata().getLabels())
            .containsEntry(ManagedObjects.OPERAND_LABEL, op.name());
        assertThat(ManagedObjects.recordedHash(o)).isEqualTo(ManagedObjects.hash(o));
        if (o instanceof DaemonSet ds) {
          var pod = ds.getSpec().getTemplate().getSpec();
          // The MPS control daemon runs where the device plugin runs and MPS is configured.
          var selector = new java.util.HashMap<>(pod.getNodeSelector());
          if (op.name().equals("mps-control-daemon")) {
            assertThat(selector.remove("nvidia.com/mps.capable")).isEqualTo("true");
            assertThat(selector).containsExactly(Map.entry(Labels.deploy("device-plugin"), "true"));
          } else {
            assertThat(selector)
                .as(ds.getMetadata().getName())
                .containsExactly(Map.entry(Labels.deploy(op.name()), "true"));
          }
          assertThat(pod.getTolerations())
              .contains(new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null));
          assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
          assertThat(ds.getMetadata().getNamespace()).isEqualTo("gpu-operator");
          assertThat(ds.getSpec().getTemplate().getMetadata().getLabels().get("app"))
              .isEqualTo(ds.getMetadata().getName());
          pod.getContainers().forEach(c -> assertThat(c.getImage()).doesNotContain("FILLED"));
          if (pod.getInitContainers() != null) {
            pod.getInitContainers().forEach(c -> assertThat(c.getImage()).doesNotContain("FILLED"));
          }
        }
      }
    }
  }

  @Test
  void renderingIsDeterministicAndTheHashFollowsContent() {
    var a = render(Policies.sample());
    var b = render(Policies.sample());
    assertThat(hashes(a)).isEqualTo(hashes(b));
    var changed = Policies.sample();
    changed.getSpec().devicePlugin.version = "v0.17.2";
    var c = render(changed);
    var ha = hashes(a);
    var hc = hashes(c);
    assertThat(hc.get("DaemonSet/nvidia-device-plugin-daemonset"))
        .isNotEqualTo(ha.get("DaemonSet/nvidia-device-plugin-daemonset"));
    assertThat(hc.get("DaemonSet/nvidia-driver-daemonset"))
        .isEqualTo(ha.get("DaemonSet/nvidia-driver-daemonset"));
  }

  @Test
  void halfSetImagesOfSeveralOperandsAreAllReported() {
    var p = Policies.sample();
    p.getSpec().driver.version = null;
    p.getSpec().gfd.repository = null;
    assertThatThrownBy(() -> render(p))
        .isInstanceOf(PolicyValidationException.class)
        .satisfies(
            e ->
                assertThat(((PolicyValidationException) e).violations())
                    .extracting(v -> v.path())
                    .contains("spec.driver.version", "spec.gfd.repository"));
  }

  private static Map<String, String> hashes(List<RenderedOperand> ops) {
    return ops.stream()
        .flatMap(o -> o.objects().stream())
        .collect(
            Collectors.toMap(
                o -> o.getKind() + "/" + o.getMetadata().getName(), ManagedObjects::recordedHash));
  }
}
