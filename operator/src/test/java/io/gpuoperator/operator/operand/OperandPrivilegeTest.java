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
          "nvidia-device-plugin-mps-control-daemon");

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
      for (var operand : Operands.renderAll(policy, Policies.facts(), Policies.config())) {
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

  private static boolean privileged(Container c) {
    return c.getSecurityContext() != null
        && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
  }
}
