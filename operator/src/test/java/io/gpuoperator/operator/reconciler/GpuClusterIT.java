package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.status.Conditions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The GPUCluster against a real control plane (API server with its CEL rules, controller manager
 * for the DaemonSet controller and garbage collection) and the real operator: the DRA driver's
 * DeviceClasses, RBAC and kubelet plugin DaemonSet from the GPUCluster's spec, owned by it; the
 * plugin waiting for the driver (no driver runs here) in status; fields it does not deploy in the
 * IgnoredFields condition; the singleton name enforced by the server; a ClusterPolicy next to it
 * reported as the original reports it, with nothing applied; deletion removing everything.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GpuClusterIT {
  static final List<String> GPU_NODES = List.of("gpu-0", "gpu-1");
  static final String DS = "nvidia-dra-driver-gpu-kubelet-plugin";

  @RegisterExtension
  static final OwnControlPlane CLUSTER = new OwnControlPlane("gc-1", GpuClusterIT::nodes);

  static KubernetesClient admin;
  static String ns;

  /** Two GPU nodes, one GPU node pinned against the plugin and a CPU node. */
  static void nodes(KubernetesClient admin) {
    for (String n : GPU_NODES) {
      admin.nodes().resource(ItCluster.node(n, ItCluster.NFD_GPU)).create();
    }
    // A node that keeps the user's choice: the plugin is not wanted there.
    Map<String, String> pinned = new HashMap<>(ItCluster.NFD_GPU);
    pinned.put(Labels.deploy(Labels.DRA_DRIVER), "false");
    admin.nodes().resource(ItCluster.node("gpu-pinned", pinned)).create();
    admin.nodes().resource(ItCluster.node("cpu-0", ItCluster.NFD_CPU)).create();
  }

  @BeforeAll
  static void start() {
    admin = CLUSTER.admin();
    ns = CLUSTER.ns();
  }

  static GPUCluster gpuCluster(String name) {
    return Serialization.unmarshal(
        """
        apiVersion: nvidia.com/v1alpha1
        kind: GPUCluster
        metadata:
          name: %s
        spec:
          draDriver:
            repository: registry.example.com/gpu-operator-java
            image: gpu-operator
            version: "1.2.3"
            imagePullPolicy: Always
            imagePullSecrets: [regcred]
            featureGates: {MPSSupport: true}
            gpus:
              kubeletPlugin:
                env: [{name: LOG_LEVEL, value: debug}]
                resources: {limits: {memory: 256Mi}}
            computeDomains: {enabled: true}
          hostPaths:
            kubeletRootDir: /var/lib/k8s-kubelet
          daemonsets:
            labels: {team: gpu}
        """
            .formatted(name),
        GPUCluster.class);
  }

  static GPUCluster live() {
    return admin.resources(GPUCluster.class).withName(GPUCluster.NAME).get();
  }

  static Condition condition(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
  }

  static boolean ownedByGpuCluster(List<OwnerReference> refs) {
    return refs != null
        && refs.stream()
            .anyMatch(
                r ->
                    "GPUCluster".equals(r.getKind())
                        && GPUCluster.NAME.equals(r.getName())
                        && Boolean.TRUE.equals(r.getController()));
  }

  static GenericKubernetesResource deviceClass(String name) {
    return admin
        .genericKubernetesResources("resource.k8s.io/v1", "DeviceClass")
        .withName(name)
        .get();
  }

  @Test
  @Order(1)
  void theApiServerRefusesAnyNameButGpuCluster() {
    assertThatThrownBy(() -> admin.resource(gpuCluster("my-cluster")).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("GPUCluster is a singleton: its name must be gpu-cluster");
    assertThat(admin.resources(GPUCluster.class).list().getItems()).isEmpty();
  }

  @Test
  @Order(2)
  void aGpuClusterDeploysTheDraDriverWithItsSettings() {
    admin.resource(gpuCluster(GPUCluster.NAME)).create();

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(deviceClass("gpu.nvidia.com")).isNotNull();
              assertThat(deviceClass("mig.nvidia.com")).isNotNull();
              // computeDomains.enabled: NVIDIA's two ComputeDomain classes too.
              assertThat(deviceClass("compute-domain-daemon.nvidia.com")).isNotNull();
              assertThat(deviceClass("compute-domain-default-channel.nvidia.com")).isNotNull();
              assertThat(admin.apps().daemonSets().inNamespace(ns).withName(DS).get()).isNotNull();
            });
    for (String dc : List.of("gpu.nvidia.com", "mig.nvidia.com")) {
      assertThat(ownedByGpuCluster(deviceClass(dc).getMetadata().getOwnerReferences()))
          .as(dc)
          .isTrue();
    }
    // The plugin's RBAC ships in the chart (templates/operands-rbac.yaml): never written here.
    assertThat(admin.rbac().clusterRoles().withName("nvidia-dra-driver-gpu").get()).isNull();

    DaemonSet ds = admin.apps().daemonSets().inNamespace(ns).withName(DS).get();
    assertThat(ownedByGpuCluster(ds.getMetadata().getOwnerReferences())).isTrue();
    assertThat(ds.getMetadata().getLabels()).containsEntry("team", "gpu");
    var pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsEntry(Labels.deploy(Labels.DRA_DRIVER), "true");
    // No ClusterPolicy creates RuntimeClasses here: the one the plugin's pods name comes with it.
    RuntimeClass rc = admin.resources(RuntimeClass.class).withName(pod.getRuntimeClassName()).get();
    assertThat(rc).as("RuntimeClass %s", pod.getRuntimeClassName()).isNotNull();
    assertThat(rc.getHandler()).isEqualTo("nvidia");
    assertThat(ownedByGpuCluster(rc.getMetadata().getOwnerReferences())).isTrue();
    assertThat(pod.getImagePullSecrets()).extracting(s -> s.getName()).contains("regcred");
    Container plugin =
        pod.getContainers().stream().filter(c -> c.getName().equals("gpus")).findFirst().get();
    assertThat(plugin.getImage())
        .isEqualTo("registry.example.com/gpu-operator-java/gpu-operator:1.2.3");
    assertThat(plugin.getImagePullPolicy()).isEqualTo("Always");
    assertThat(plugin.getArgs()).containsExactly("dra-plugin");
    assertThat(plugin.getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            org.assertj.core.groups.Tuple.tuple("LOG_LEVEL", "debug"),
            org.assertj.core.groups.Tuple.tuple(
                "KUBELET_REGISTRAR_DIRECTORY_PATH", "/var/lib/k8s-kubelet/plugins_registry"));
    assertThat(plugin.getResources().getLimits().get("memory").toString()).isEqualTo("256Mi");
    // No ClusterPolicy, so no toolkit and no validator: the plugin waits for the driver.
    assertThat(pod.getInitContainers())
        .extracting(Container::getName)
        .containsExactly("driver-validation");
    assertThat(String.join(" ", pod.getInitContainers().get(0).getArgs()))
        .contains("driver-ready")
        .doesNotContain("toolkit-ready");

    // GPU nodes get the label the DaemonSet selects; a user's "false" and CPU nodes do not.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (String n : GPU_NODES) {
                assertThat(admin.nodes().withName(n).get().getMetadata().getLabels())
                    .as(n)
                    .containsEntry(Labels.deploy(Labels.DRA_DRIVER), "true");
              }
            });
    assertThat(admin.nodes().withName("gpu-pinned").get().getMetadata().getLabels())
        .containsEntry(Labels.deploy(Labels.DRA_DRIVER), "false");
    assertThat(admin.nodes().withName("cpu-0").get().getMetadata().getLabels())
        .doesNotContainKey(Labels.deploy(Labels.DRA_DRIVER));

    // No kubelet runs the pods here: the plugin is not ready, and the status says it waits.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              GPUCluster gc = live();
              assertThat(gc.getStatus()).isNotNull();
              assertThat(gc.getStatus().state).isEqualTo(State.NOT_READY);
              Condition ready = condition(gc.getStatus().conditions, Conditions.READY);
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo("DriverNotReady");
              assertThat(ready.getMessage()).contains("/2 nodes ready");
              Condition ignored = condition(gc.getStatus().conditions, Conditions.IGNORED_FIELDS);
              assertThat(ignored.getStatus()).isEqualTo("True");
              assertThat(ignored.getMessage())
                  .doesNotContain("computeDomains")
                  .contains("spec.draDriver.featureGates")
                  .contains("MPSSupport");
            });
  }

  @Test
  @Order(3)
  void aClusterPolicyNextToTheGpuClusterIsInConflictAndAppliesNothing() {
    admin.resource(ItCluster.samplePolicy("cluster-policy")).create();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ClusterPolicy p =
                  admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
              assertThat(p.getStatus()).isNotNull();
              assertThat(p.getStatus().state).isEqualTo(State.NOT_READY);
              Condition error = condition(p.getStatus().conditions, Conditions.ERROR);
              assertThat(error.getStatus()).isEqualTo("True");
              assertThat(error.getReason()).isEqualTo(Conditions.RECONCILE_FAILED);
              assertThat(error.getMessage())
                  .isEqualTo(
                      "conflicting GPUCluster resource \"gpu-cluster\" detected; ClusterPolicy"
                          + " and GPUCluster cannot co-exist");
              GPUCluster gc = live();
              assertThat(condition(gc.getStatus().conditions, Conditions.ERROR).getMessage())
                  .isEqualTo(
                      "conflicting ClusterPolicy resource \"cluster-policy\" detected;"
                          + " ClusterPolicy and GPUCluster cannot co-exist");
            });
    // Nothing of the policy's was applied, and no node got its labels.
    assertThat(admin.apps().daemonSets().inNamespace(ns).list().getItems())
        .extracting(d -> d.getMetadata().getName())
        .containsExactly(DS);
    assertThat(admin.nodes().withName("gpu-0").get().getMetadata().getLabels())
        .doesNotContainKey(Labels.deploy(Labels.DEVICE_PLUGIN));

    admin.resources(ClusterPolicy.class).withName("cluster-policy").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(condition(live().getStatus().conditions, Conditions.READY).getReason())
                    .isEqualTo("DriverNotReady"));
  }

  @Test
  @Order(4)
  void deletingTheGpuClusterRemovesWhatItCreated() {
    admin.resources(GPUCluster.class).withName(GPUCluster.NAME).delete();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(deviceClass("gpu.nvidia.com")).isNull();
              assertThat(deviceClass("mig.nvidia.com")).isNull();
              assertThat(deviceClass("compute-domain-default-channel.nvidia.com")).isNull();
              assertThat(admin.apps().daemonSets().inNamespace(ns).withName(DS).get()).isNull();
              assertThat(admin.resources(RuntimeClass.class).withName("nvidia").get()).isNull();
            });
  }
}
