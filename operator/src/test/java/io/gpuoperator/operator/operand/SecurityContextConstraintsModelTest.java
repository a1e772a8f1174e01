package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.openshift.OpenShiftTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The operands' SecurityContextConstraints on OpenShift, field by field against the original's
 * (v26.7 {@code *_scc*openshift.yaml} of each state, transcribed here rather than taken from our
 * output): the same names, one per operand ServiceAccount and granted to it alone, the same
 * privileges, and the host namespaces each allows. Read strictly as OpenShift's API type.
 */
class SecurityContextConstraintsModelTest {
  /** What differs between the original's SCCs: hostIPC, hostNetwork, hostPID, hostPorts. */
  record Hosts(boolean ipc, boolean network, boolean pid, boolean ports) {}

  static final Map<String, Hosts> ORIGINAL =
      Map.ofEntries(
          Map.entry("nvidia-driver", new Hosts(false, false, true, false)),
          Map.entry("nvidia-gpu-feature-discovery", new Hosts(false, false, true, false)),
          Map.entry("nvidia-dcgm", new Hosts(false, true, false, true)),
          Map.entry("nvidia-dcgm-exporter", new Hosts(false, false, false, true)),
          Map.entry("nvidia-mig-manager", new Hosts(true, false, true, false)),
          Map.entry("nvidia-node-status-exporter", new Hosts(false, false, false, false)),
          Map.entry("nvidia-operator-validator", new Hosts(false, false, true, false)),
          Map.entry("nvidia-vgpu-manager", new Hosts(false, false, true, false)),
          Map.entry("nvidia-vfio-manager", new Hosts(false, false, false, false)),
          Map.entry("nvidia-sandbox-device-plugin", new Hosts(false, false, false, false)),
          Map.entry("nvidia-sandbox-validator", new Hosts(false, false, false, false)),
          // The original's file for the CC manager names it nvidia-vfio-manager (a copy of the VFIO
          // manager's); ours is named after the CC manager's ServiceAccount, which it is for.
          Map.entry("nvidia-cc-manager", new Hosts(false, false, false, false)));

  /** The one whose capabilities and sysctls the original leaves out. */
  static final String NO_CAPABILITIES = "nvidia-sandbox-device-plugin";

  /**
   * The vGPU manager's pod shares the host's IPC namespace, which the original's SCC for it does
   * not allow: there OpenShift admits it under the privileged SCC its Role may use.
   */
  static final Map<String, String> POD_BEYOND_SCC = Map.of("nvidia-vgpu-manager", "hostIPC");

  /**
   * Every operand with an SCC on: standalone DCGM, the node-status exporter and the sandbox
   * operands too (the KubeVirt ones; the CC manager runs in kata mode).
   */
  static ClusterPolicy everyOperand() {
    return everyOperand("kubevirt");
  }

  static ClusterPolicy everyOperand(String mode) {
    return Policies.withSpec(
        "  dcgm: {enabled: true}\n  nodeStatusExporter: {enabled: true}\n"
            + "  sandboxWorkloads: {enabled: true, mode: "
            + mode
            + "}\n"
            + "  vgpuManager: {enabled: true, repository: r.example, image: vgpu, version: '1'}\n"
            + "  vfioManager: {enabled: true}\n  sandboxDevicePlugin: {enabled: true}\n"
            + "  kataSandboxDevicePlugin: {enabled: true}\n  ccManager: {enabled: true}\n");
  }

  static ClusterFacts openShift() {
    return new ClusterFacts("v1.36.3", "crio", false, 2, true, "rhcos4.18").withOpenShift(true);
  }

  /** Every operand's objects, in KubeVirt and in Kata mode (where the CC manager runs). */
  static List<HasMetadata> render(ClusterFacts facts, OperatorConfig config) {
    Map<String, HasMetadata> out = new LinkedHashMap<>();
    for (String mode : List.of("kubevirt", "kata")) {
      Operands.renderAll(everyOperand(mode), facts, config)
          .forEach(
              r ->
                  r.objects()
                      .forEach(
                          o -> out.putIfAbsent(o.getKind() + "/" + o.getMetadata().getName(), o)));
    }
    return new ArrayList<>(out.values());
  }

  static Map<String, SecurityContextConstraints> sccs(List<HasMetadata> objects) {
    Map<String, SecurityContextConstraints> out = new LinkedHashMap<>();
    for (HasMetadata o : objects) {
      if (o.getKind().equals("SecurityContextConstraints")) {
        out.put(
            o.getMetadata().getName(), OpenShiftTypes.strict(o, SecurityContextConstraints.class));
      }
    }
    return out;
  }

  @Test
  void eachOperandGetsTheOriginalsSccOnOpenShift() {
    OperatorConfig config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", "nvidia-gpu"));
    Map<String, SecurityContextConstraints> sccs = sccs(render(openShift(), config));
    assertThat(sccs.keySet()).containsExactlyInAnyOrderElementsOf(ORIGINAL.keySet());
    sccs.forEach(
        (name, scc) -> {
          Hosts hosts = ORIGINAL.get(name);
          assertThat(scc.getApiVersion()).isEqualTo("security.openshift.io/v1");
          assertThat(scc.getMetadata().getNamespace()).as(name).isNull();
          assertThat(scc.getUsers())
              .as(name)
              .containsExactly("system:serviceaccount:nvidia-gpu:" + name);
          assertThat(scc.getGroups())
              .as(name)
              .containsExactly("system:cluster-admins", "system:nodes", "system:masters");
          assertThat(scc.getAllowHostIPC()).as(name + " hostIPC").isEqualTo(hosts.ipc());
          assertThat(scc.getAllowHostNetwork())
              .as(name + " hostNetwork")
              .isEqualTo(hosts.network());
          assertThat(scc.getAllowHostPID()).as(name + " hostPID").isEqualTo(hosts.pid());
          assertThat(scc.getAllowHostPorts()).as(name + " hostPorts").isEqualTo(hosts.ports());
          assertThat(scc.getAllowHostDirVolumePlugin()).as(name).isTrue();
          assertThat(scc.getAllowPrivilegedContainer()).as(name).isTrue();
          assertThat(scc.getAllowPrivilegeEscalation()).as(name).isTrue();
          assertThat(scc.getReadOnlyRootFilesystem()).as(name).isFalse();
          if (name.equals(NO_CAPABILITIES)) {
            assertThat(scc.getAllowedCapabilities()).as(name).isEmpty();
            assertThat(scc.getAllowedUnsafeSysctls()).as(name).isEmpty();
          } else {
            assertThat(scc.getAllowedCapabilities()).as(name).containsExactly("*");
            assertThat(scc.getAllowedUnsafeSysctls()).as(name).containsExactly("*");
          }
          assertThat(scc.getSeccompProfiles()).as(name).containsExactly("*");
          assertThat(scc.getVolumes()).as(name).containsExactly("*");
          assertThat(scc.getDefaultAddCapabilities()).as(name).isEmpty();
          assertThat(scc.getRequiredDropCapabilities()).as(name).isEmpty();
          assertThat(scc.getPriority()).as(name).isNull();
          assertThat(scc.getFsGroup().getType()).as(name).isEqualTo("RunAsAny");
          assertThat(scc.getRunAsUser().getType()).as(name).isEqualTo("RunAsAny");
          assertThat(scc.getSeLinuxContext().getType()).as(name).isEqualTo("RunAsAny");
          assertThat(scc.getSupplementalGroups().getType()).as(name).isEqualTo("RunAsAny");
        });
  }

  /**
   * Each SCC is granted to a ServiceAccount a rendered DaemonSet runs as, with our agents and with
   * NVIDIA's images; and the pods of those DaemonSets ask only for host namespaces it allows.
   */
  @Test
  void eachSccCoversItsDaemonSetsPods() {
    for (OperatorConfig config :
        List.of(OperatorConfig.fromEnv(Map.of()), Policies.configWithToolkitAgent())) {
      List<HasMetadata> objects = render(openShift(), config);
      Map<String, SecurityContextConstraints> sccs = sccs(objects);
      Set<String> covered = new TreeSet<>();
      for (HasMetadata o : objects) {
        if (!(o instanceof DaemonSet ds)) {
          continue;
        }
        var pod = ds.getSpec().getTemplate().getSpec();
        SecurityContextConstraints scc = sccs.get(pod.getServiceAccountName());
        if (scc == null) {
          continue; // device plugin, toolkit, MPS, Kata plugin: none in the original either
        }
        covered.add(scc.getMetadata().getName());
        String what = ds.getMetadata().getName() + " under " + scc.getMetadata().getName();
        if (Boolean.TRUE.equals(pod.getHostPID())) {
          assertThat(scc.getAllowHostPID()).as(what + ": hostPID").isTrue();
        }
        if (Boolean.TRUE.equals(pod.getHostIPC())
            && !"hostIPC".equals(POD_BEYOND_SCC.get(scc.getMetadata().getName()))) {
          assertThat(scc.getAllowHostIPC()).as(what + ": hostIPC").isTrue();
        }
        if (Boolean.TRUE.equals(pod.getHostNetwork())) {
          assertThat(scc.getAllowHostNetwork()).as(what + ": hostNetwork").isTrue();
        }
      }
      assertThat(covered).containsExactlyInAnyOrderElementsOf(ORIGINAL.keySet());
    }
  }

  @Test
  void noSccOffOpenShift() {
    List<HasMetadata> objects =
        render(
            new ClusterFacts("v1.36.3", "containerd", false, 2, true, "ubuntu22.04"),
            Policies.config());
    assertThat(objects)
        .isNotEmpty()
        .noneMatch(o -> o.getKind().equals("SecurityContextConstraints"));
  }

  /** The chart's platform.openshift reaches rendering through PLATFORM_OPENSHIFT. */
  @Test
  void platformOpenShiftIsReadFromTheEnvironment() {
    assertThat(OperatorConfig.fromEnv(Map.of("PLATFORM_OPENSHIFT", "true")).openShift()).isTrue();
    assertThat(OperatorConfig.fromEnv(Map.of()).openShift()).isFalse();
    assertThat(OperatorConfig.fromEnv(Map.of()).withOpenShift(true).withNamespace("x").openShift())
        .isTrue();
  }
}
