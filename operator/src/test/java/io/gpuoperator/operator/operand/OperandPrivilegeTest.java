package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.operator.Policies;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Privileges of single operands under the settings that change them. The whole list, every
 * container of every operand with its reason, is {@link OperandPrivilegesTest}.
 */
class OperandPrivilegeTest {
  /**
   * The device plugin: no Bidirectional mount (it mounts nothing for the host), no capabilities but
   * SYS_ADMIN, and that one only with a MIG strategy (the nvidia runtime's condition for
   * NVIDIA_MIG_MONITOR_DEVICES), seccomp RuntimeDefault.
   */
  @Test
  void theDevicePluginIsUnprivilegedAndAddsSysAdminOnlyForMig() {
    for (String strategy : List.of("none", "single", "mixed")) {
      var policy = Policies.withSpec("  mig: {strategy: " + strategy + "}\n");
      DaemonSet ds =
          Operands.renderAll(policy, Policies.facts(), Policies.config()).stream()
              .flatMap(o -> o.objects().stream())
              .filter(DaemonSet.class::isInstance)
              .map(DaemonSet.class::cast)
              .filter(d -> d.getMetadata().getName().equals("nvidia-device-plugin-daemonset"))
              .findFirst()
              .orElseThrow();
      var pod = ds.getSpec().getTemplate().getSpec();
      for (Container c :
          Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream()).toList()) {
        var sc = c.getSecurityContext();
        assertThat(sc.getPrivileged()).as(strategy + " " + c.getName()).isFalse();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getVolumeMounts())
            .noneMatch(m -> "Bidirectional".equals(m.getMountPropagation()));
      }
      Container main = pod.getContainers().get(0);
      var env =
          main.getEnv().stream()
              .collect(
                  java.util.stream.Collectors.toMap(
                      e -> e.getName(), e -> String.valueOf(e.getValue())));
      if (strategy.equals("none")) {
        assertThat(main.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(main.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(env).doesNotContainKey("NVIDIA_MIG_MONITOR_DEVICES");
      } else {
        assertThat(main.getSecurityContext().getCapabilities().getAdd())
            .as(strategy)
            .containsExactly("SYS_ADMIN");
        assertThat(env).containsEntry("NVIDIA_MIG_MONITOR_DEVICES", "all");
      }
      assertThat(env).containsEntry("MIG_STRATEGY", strategy);
      assertThat(pod.getVolumes()).noneMatch(v -> v.getName().equals("mps-root"));
    }
  }

  /** Hosting only unprivileged agents, the node-agents pod is unprivileged too. */
  @Test
  void nodeAgentsOfOnlyUnprivilegedAgentsRunUnprivileged() {
    var policy =
        Policies.withSpec("  devicePlugin: {enabled: false}\n  migManager: {enabled: false}\n");
    var pod = nodeAgentsPod(policy);
    assertThat(pod.getContainers().get(0).getArgs())
        .contains("--run", "exporter", "feature-discovery");
    assertThat(Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream()))
        .noneMatch(OperandPrivilegeTest::privileged);
    assertThat(pod.getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
        .containsExactly("ALL");
  }

  /**
   * Hosting the device plugin without the MIG manager, the node-agents pod is unprivileged with
   * exactly what the device plugin adds (root for the kubelet's socket directory, SYS_ADMIN under a
   * MIG strategy, whose runtime variable stays the container's) and the restrictions all three
   * agents share.
   */
  @Test
  void nodeAgentsHostingTheDevicePluginGetItsNeedsAndNoMore() {
    var policy = Policies.withSpec("  mig: {strategy: single}\n  migManager: {enabled: false}\n");
    var pod = nodeAgentsPod(policy);
    Container main = pod.getContainers().get(0);
    assertThat(main.getArgs()).contains("device-plugin", "exporter", "feature-discovery");
    var sc = main.getSecurityContext();
    assertThat(sc.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(sc.getRunAsUser()).isZero();
    assertThat(sc.getCapabilities().getAdd()).containsExactly("SYS_ADMIN");
    assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(main.getEnv())
        .anyMatch(
            e -> e.getName().equals("NVIDIA_MIG_MONITOR_DEVICES") && "all".equals(e.getValue()));
  }

  /** The pod of the node-agents DaemonSet the operator renders for the policy in that mode. */
  private static io.fabric8.kubernetes.api.model.PodSpec nodeAgentsPod(
      io.gpuoperator.api.v1.ClusterPolicy policy) {
    var ds =
        Operands.renderAll(policy, Policies.facts(), Policies.config().withNodeAgents(true))
            .stream()
            .filter(o -> o.name().equals(OperandNames.NODE_AGENTS))
            .findFirst()
            .orElseThrow()
            .objects()
            .get(1);
    return ((DaemonSet) ds).getSpec().getTemplate().getSpec();
  }

  private static boolean privileged(Container c) {
    return c.getSecurityContext() != null
        && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
  }
}
