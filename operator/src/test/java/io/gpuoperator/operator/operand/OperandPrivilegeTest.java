package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.operator.Policies;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operand DaemonSets with a privileged container are exactly the documented ones
 * (docs/helm-values.md, "Privileged operands"): the driver, the toolkit, the MIG manager, the
 * validator, the device plugin (it mounts MPS shared memory for the host), the DRA plugin, and the
 * two that run NVIDIA's images (DCGM, the MPS control daemon). Feature discovery and the exporter
 * run our agents unprivileged, with a hostPath mount of the socket they need and the GPUs from the
 * nvidia runtime. Change the documentation with this list.
 */
class OperandPrivilegeTest {
  static final Set<String> DOCUMENTED =
      Set.of(
          "nvidia-driver-daemonset",
          "nvidia-container-toolkit-daemonset",
          "nvidia-mig-manager",
          "nvidia-operator-validator",
          // Mounts the MPS shared memory for the host (Bidirectional propagation needs privileged).
          "nvidia-device-plugin-daemonset",
          "nvidia-dra-driver-gpu-kubelet-plugin",
          // NVIDIA's images (no agent of ours), with the original's security context.
          "nvidia-dcgm",
          "nvidia-device-plugin-mps-control-daemon",
          // Node-agents mode: hosts the device plugin (or DRA plugin) and the MIG manager.
          "nvidia-node-agents");

  @Test
  void onlyTheDocumentedOperandsRunPrivileged() {
    Set<String> privileged = new TreeSet<>();
    Set<String> all = new TreeSet<>();
    for (String spec :
        new String[] {
          "  migManager: {enabled: true}\n  dcgmExporter: {enabled: true}\n  gfd: {enabled: true}\n",
          "  devicePlugin: {enabled: false}\n  draDriver: {enabled: true}\n"
        }) {
      var policy =
          Policies.parse(
              "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n"
                  + spec);
      for (var operand :
          Stream.concat(
                  Operands.renderAll(policy, Policies.facts(), Policies.config()).stream(),
                  Operands.renderAll(
                      policy, Policies.facts(), Policies.config().withNodeAgents(true))
                      .stream())
              .toList()) {
        for (var object : operand.objects()) {
          if (object instanceof DaemonSet ds) {
            all.add(ds.getMetadata().getName());
            var pod = ds.getSpec().getTemplate().getSpec();
            if (Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream())
                .anyMatch(OperandPrivilegeTest::privileged)) {
              privileged.add(ds.getMetadata().getName());
            }
          }
        }
      }
    }
    assertThat(all).contains("gpu-feature-discovery", "nvidia-dcgm-exporter");
    assertThat(privileged).isEqualTo(new TreeSet<>(DOCUMENTED));
  }

  /** Hosting only unprivileged agents, the node-agents pod is unprivileged too. */
  @Test
  void nodeAgentsOfOnlyUnprivilegedAgentsRunUnprivileged() {
    var policy =
        Policies.parse(
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n"
                + "  devicePlugin: {enabled: false}\n  migManager: {enabled: false}\n");
    var ds =
        Operands.renderAll(policy, Policies.facts(), Policies.config().withNodeAgents(true))
            .stream()
            .filter(o -> o.name().equals(OperandNames.NODE_AGENTS))
            .findFirst()
            .orElseThrow()
            .objects()
            .get(1);
    var pod = ((DaemonSet) ds).getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getArgs())
        .contains("--run", "exporter", "feature-discovery");
    assertThat(Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream()))
        .noneMatch(OperandPrivilegeTest::privileged);
    assertThat(pod.getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
        .containsExactly("ALL");
  }

  private static boolean privileged(Container c) {
    return c.getSecurityContext() != null
        && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
  }
}
