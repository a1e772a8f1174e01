package io.gpuoperator.operator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeSystem;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.operand.ManagedObjects;
import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaDriverModelTest {
  static io.fabric8.kubernetes.api.model.Container container(
      io.fabric8.kubernetes.api.model.PodSpec pod, String name) {
    return pod.getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  static NVIDIADriver driver(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: nvidia.com/v1alpha1\nkind: NVIDIADriver\n" + yaml, NVIDIADriver.class);
  }

  private static final ClusterFacts FACTS =
      ClusterFacts.offline(3, "ubuntu22.04")
          .withSystems(
              List.of(
                  new NodeSystem("ubuntu", "22.04", "5.15.0-105-generic"),
                  new NodeSystem("rhel", "9.4", "5.14.0-427.el9.x86_64"),
                  new NodeSystem(null, null, null)));

  @Test
  void oneDaemonSetPerOsNamedAfterTheResourceAndSelectingItsNodes() {
    NVIDIADriver d =
        driver(
            """
            metadata: {name: a100}
            spec:
              repository: registry.example/nvidia
              image: driver
              version: "550.54.15"
              nodeSelector: {pool: a100}
              repoConfig: {name: local-repos}
              gds: {enabled: true, repository: nvcr.io/nvidia/cloud-native, image: nvidia-fs, version: "2.20.5"}
              tolerations: [{key: dedicated, operator: Exists}]
              priorityClassName: gpu-critical
              labels: {team: ml}
              annotations: {note: pinned}
            """);
    List<DaemonSet> ds =
        NvidiaDriverModel.daemonSets(
            d,
            Policies.sample(),
            FACTS.withConfigMapKeys(java.util.Map.of("local-repos", List.of("local.repo"))),
            Policies.config());
    assertThat(ds)
        .extracting(x -> x.getMetadata().getName())
        .containsExactly("nvidia-gpu-driver-a100-rhel9", "nvidia-gpu-driver-a100-ubuntu22.04");
    var rhel = ds.get(0);
    var pod = rhel.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector())
        .containsEntry(DriverOwners.OWNER, "a100")
        .containsEntry(Labels.NFD_OS_ID, "rhel")
        .containsEntry(NodeSystem.OS_VERSION_MAJOR, "9")
        .doesNotContainKey("pool");
    assertThat(rhel.getSpec().getSelector().getMatchLabels())
        .containsEntry(Labels.APP, "nvidia-gpu-driver-a100-rhel9");
    assertThat(container(pod, "nvidia-driver-ctr").getImage())
        .isEqualTo("registry.example/nvidia/driver:550.54.15-rhel9");
    assertThat(container(pod, "nvidia-driver-ctr").getVolumeMounts())
        .anyMatch(m -> m.getMountPath().startsWith("/etc/yum.repos.d"));
    assertThat(pod.getContainers())
        .anyMatch(
            c ->
                c.getName().equals("nvidia-fs-ctr")
                    && c.getImage().equals("nvcr.io/nvidia/cloud-native/nvidia-fs:2.20.5-rhel9"));
    assertThat(pod.getTolerations()).anyMatch(t -> "dedicated".equals(t.getKey()));
    assertThat(pod.getPriorityClassName()).isEqualTo("gpu-critical");
    assertThat(rhel.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("team", "ml")
        .containsEntry(Labels.APP, "nvidia-gpu-driver-a100-rhel9");
    assertThat(rhel.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("note", "pinned");
    assertThat(rhel.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
  }

  @Test
  void precompiledPoolsAreOsAndKernel() {
    NVIDIADriver d =
        driver(
            """
            metadata: {name: default}
            spec: {default: true, usePrecompiled: true, repository: nvcr.io/nvidia, image: driver, version: "550"}
            """);
    List<DaemonSet> ds =
        NvidiaDriverModel.daemonSets(d, Policies.sample(), FACTS, Policies.config());
    assertThat(ds)
        .extracting(x -> x.getMetadata().getName())
        .containsExactly(
            "nvidia-gpu-driver-default-5.14.0-427.el9-rhel9",
            "nvidia-gpu-driver-default-5.15.0-105-generic-ubuntu22.04");
    assertThat(
            container(ds.get(1).getSpec().getTemplate().getSpec(), "nvidia-driver-ctr").getImage())
        .isEqualTo("nvcr.io/nvidia/driver:550-5.15.0-105-generic-ubuntu22.04");
    assertThat(ds.get(1).getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry(Labels.NFD_KERNEL_FULL, "5.15.0-105-generic")
        .containsEntry(DriverOwners.OWNER, "default");
  }

  @Test
  void onlyTheGpuDriverTypeRuns() {
    assertThat(
            NvidiaDriverModel.unsupported(driver("metadata: {name: v}\nspec: {driverType: vgpu}")))
        .contains("driverType vgpu is not supported");
    assertThat(
            NvidiaDriverModel.unsupported(driver("metadata: {name: g}\nspec: {driverType: gpu}")))
        .isNull();
    assertThat(NvidiaDriverModel.dnsLabel("nvidia-gpu-driver-" + "x".repeat(80) + "-ubuntu22.04"))
        .hasSizeLessThanOrEqualTo(63)
        .matches("[a-z0-9]([a-z0-9.-]*[a-z0-9])?");
  }

  @Test
  void upgradesAreOnUnlessTheResourceSaysOtherwiseAndOffWithSandboxWorkloads() {
    var policy = Policies.minimal();
    assertThat(
            NvidiaDriverModel.upgradeSettings(driver("metadata: {name: a}\nspec: {}"), policy)
                .autoUpgrade())
        .isTrue();
    assertThat(
            NvidiaDriverModel.upgradeSettings(
                    driver("metadata: {name: a}\nspec: {upgradePolicy: {autoUpgrade: false}}"),
                    policy)
                .autoUpgrade())
        .isFalse();
    policy.getSpec().sandboxWorkloads = new io.gpuoperator.api.v1.SandboxWorkloadsSpec();
    policy.getSpec().sandboxWorkloads.enabled = true;
    assertThat(
            NvidiaDriverModel.upgradeSettings(driver("metadata: {name: a}\nspec: {}"), policy)
                .autoUpgrade())
        .isFalse();
  }

  @Test
  void withoutAClusterPolicyTheDaemonSetsAreThoseOfAPolicyThatOnlyDelegatesTheDriver() {
    NVIDIADriver d =
        driver(
            """
            metadata: {name: default}
            spec: {default: true, repository: nvcr.io/nvidia, image: driver, version: "550.54.15"}
            """);
    // What the API server stores for a policy that says only this (the CRD's defaults filled in).
    var delegating =
        clusterPolicy(
            """
            operator: {runtimeClass: nvidia}
            toolkit: {installDir: /usr/local/nvidia}
            driver: {useNvidiaDriverCRD: true}
            """);
    List<DaemonSet> alone =
        NvidiaDriverModel.daemonSets(d, NvidiaDriverModel.standalone(), FACTS, Policies.config());
    assertThat(alone)
        .extracting(x -> x.getMetadata().getName())
        .containsExactly(
            "nvidia-gpu-driver-default-rhel9", "nvidia-gpu-driver-default-ubuntu22.04");
    assertThat(alone)
        .isEqualTo(NvidiaDriverModel.daemonSets(d, delegating, FACTS, Policies.config()));
    // A policy that deploys nothing but delegates the driver (the other operands disabled).
    var driverOnly =
        clusterPolicy(
            """
            operator: {runtimeClass: nvidia}
            driver: {useNvidiaDriverCRD: true, repository: nvcr.io/nvidia, image: driver, version: "550.54.15"}
            toolkit: {enabled: false, installDir: /usr/local/nvidia}
            devicePlugin: {enabled: false}
            dcgm: {enabled: false}
            dcgmExporter: {enabled: false}
            gfd: {enabled: false}
            migManager: {enabled: false}
            nodeStatusExporter: {enabled: false}
            """);
    assertThat(alone)
        .isEqualTo(NvidiaDriverModel.daemonSets(d, driverOnly, FACTS, Policies.config()));
    var pod = alone.get(1).getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("nvidia-driver");
    assertThat(pod.getNodeSelector())
        .containsEntry(DriverOwners.OWNER, "default")
        .containsEntry(Labels.deploy("driver"), "true");
    // Host root / (the original hard-codes it for NVIDIADriver resources on their own).
    assertThat(pod.getVolumes())
        .anyMatch(v -> v.getName().equals("host-root") && v.getHostPath().getPath().equals("/"));
  }

  @Test
  void withoutAClusterPolicyTheResourcesBringTheDriversServiceAccountAndProbeScript() {
    var objects =
        NvidiaDriverModel.supportObjects(NvidiaDriverModel.standalone(), FACTS, Policies.config());
    assertThat(objects)
        .extracting(o -> o.getKind() + " " + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            // The RBAC that binds the account ships with the chart (OperandRbac).
            "ServiceAccount nvidia-driver", "ConfigMap nvidia-driver-startup-probe");
    // Stamped as the ClusterPolicy stamps its driver operand's, so a policy that appears later
    // finds them up to date.
    assertThat(objects)
        .allSatisfy(
            o -> {
              assertThat(ManagedObjects.operandOf(o)).isEqualTo("driver");
              assertThat(ManagedObjects.recordedHash(o)).isEqualTo(ManagedObjects.hash(o));
            });
    assertThat(objects)
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("gpu-operator"));
    // Independent of the nodes: one set serves every resource.
    assertThat(objects)
        .isEqualTo(
            NvidiaDriverModel.supportObjects(
                NvidiaDriverModel.standalone(), ClusterFacts.offline(0, null), Policies.config()));
  }

  /**
   * The ClusterPolicy named cluster-policy with this spec (YAML, the lines under {@code spec:}).
   */
  private static ClusterPolicy clusterPolicy(String spec) {
    return Policies.parse(
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\nspec:\n"
            + spec.indent(2));
  }
}
