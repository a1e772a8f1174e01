package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.DriverPoolStatus;
import io.gpuoperator.api.common.NodeRequirement;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.operator.driver.DriverChecks;
import io.gpuoperator.operator.driver.DriverOwners;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Driver pools and NVIDIADriver resources on four simulated GPU nodes of two OSes against a real
 * control plane (DaemonSet controller, garbage collector, scheduler, simulated kubelets) and the
 * real operator: a lone NVIDIADriver running and upgrading the driver without a ClusterPolicy,
 * untouched by one that comes and goes, and gone with what it rendered; one driver DaemonSet per OS
 * from the ClusterPolicy; the hand-over to NVIDIADriver resources (a default and one by
 * nodeSelector) node by node; a node two resources select left as it is and reported; a driver
 * branch incompatible with one pool's GPUs refused there while the other pool upgrades; GPUDirect
 * RDMA prerequisites per node in status.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NvidiaDriverIT extends SimulatedGpuCluster {
  static final String UB0 = "ub-0";
  static final String UB1 = "ub-1";
  static final String UB2 = "ub-2";
  static final String RH0 = "rh-0";
  static final List<String> NODES = List.of(UB0, UB1, UB2, RH0);

  static OperatorInstance operator;

  @BeforeAll
  static void start() throws Exception {
    List<NodeDescription> nodes =
        List.of(
            gpu(UB0, "ubuntu", "22.04", "5.15.0-105-generic", Map.of()),
            gpu(UB1, "ubuntu", "22.04", "5.15.0-105-generic", Map.of("pool", "b")),
            gpu(
                UB2,
                "ubuntu",
                "22.04",
                "5.15.0-105-generic",
                Map.of("pool", "b", DriverChecks.NIC_PRESENT, "true")),
            gpu(RH0, "rhel", "9.4", "5.14.0-427.el9.x86_64", Map.of()));
    startCluster(nodes, 0, () -> operator);
    operator = OperatorInstance.on(cp, ns, "nvd-1").withoutLeaderElection().start();
  }

  static NodeDescription gpu(
      String name, String os, String version, String kernel, Map<String, String> labels) {
    return NodeDescription.gpuNode(name, "H100-SXM5-80GB", 8)
        .withOs(os, version, kernel)
        .withLabels(labels);
  }

  static ClusterPolicy policy() {
    return ItCluster.driverOnlyPolicy(
        """
        autoUpgrade: true
        maxParallelUpgrades: 4
        maxUnavailable: "100%"
        validationTimeoutSeconds: 60
        """);
  }

  static NVIDIADriver nvidiaDriver(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: nvidia.com/v1alpha1\nkind: NVIDIADriver\n" + yaml, NVIDIADriver.class);
  }

  /** The driver pods not being deleted, scheduled or not. */
  static List<Pod> livePods() {
    return admin
        .pods()
        .inNamespace(ns)
        .withLabel(UpgradeKeys.COMPONENT, UpgradeKeys.DRIVER_COMPONENT)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  /** The driver DaemonSets, of every pool. */
  static List<DaemonSet> driverDaemonSets() {
    return admin
        .apps()
        .daemonSets()
        .inNamespace(ns)
        .withLabel(UpgradeKeys.COMPONENT, UpgradeKeys.DRIVER_COMPONENT)
        .list()
        .getItems();
  }

  /** Live driver pods by node: the name of the DaemonSet that controls each (null: orphaned). */
  static Map<String, String> driverPods() {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : livePods()) {
      if (p.getSpec().getNodeName() == null) {
        continue;
      }
      String owner =
          p.getMetadata().getOwnerReferences().stream()
              .filter(r -> Boolean.TRUE.equals(r.getController()))
              .map(OwnerReference::getName)
              .findFirst()
              .orElse(null);
      out.merge(p.getSpec().getNodeName(), String.valueOf(owner), (a, b) -> a + "+" + b);
    }
    return out;
  }

  /** The UID of the live driver pod on a node. */
  static String podUid(String node) {
    return livePods().stream()
        .filter(p -> node.equals(p.getSpec().getNodeName()))
        .map(p -> p.getMetadata().getUid())
        .findFirst()
        .orElse(null);
  }

  static Map<String, String> images() {
    return livePods().stream()
        .filter(p -> p.getSpec().getNodeName() != null)
        .filter(NvidiaDriverIT::ready)
        .collect(
            Collectors.toMap(
                p -> p.getSpec().getNodeName(),
                p ->
                    p.getSpec().getContainers().stream()
                        .filter(c -> c.getName().equals("nvidia-driver-ctr"))
                        .findFirst()
                        .orElseThrow()
                        .getImage(),
                (a, b) -> a + "+" + b,
                TreeMap::new));
  }

  /** Waits up to {@code limit} for the check, looking every 2 s (each look lists the pods). */
  static void eventually(Duration limit, ThrowingRunnable check) {
    await().atMost(limit).pollInterval(Duration.ofSeconds(2)).untilAsserted(check);
  }

  static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  static List<String> daemonSets() {
    return driverDaemonSets().stream().map(ds -> ds.getMetadata().getName()).sorted().toList();
  }

  static Map<String, String> labels(String node) {
    return admin.nodes().withName(node).get().getMetadata().getLabels();
  }

  static void everyNodeUpgradeDone() {
    for (String n : NODES) {
      assertThat(labels(n)).as(n).containsEntry(UpgradeKeys.STATE, "upgrade-done");
    }
  }

  static NVIDIADriver get(String name) {
    return admin.resources(NVIDIADriver.class).withName(name).get();
  }

  static String readyReason(NVIDIADriver d) {
    var c = PolicyStatusModel.ready(d.getStatus());
    return c == null ? null : c.getReason();
  }

  static void patch(
      Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> kind, String name, String json) {
    admin.resources(kind).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), json);
  }

  /** Driver pod UID by node. */
  static Map<String, String> podUids() {
    Map<String, String> out = new TreeMap<>();
    for (String n : NODES) {
      out.put(n, podUid(n));
    }
    return out;
  }

  /** The DaemonSets' generations by name: a rewrite of a template shows here. */
  static Map<String, Long> generations() {
    return driverDaemonSets().stream()
        .collect(
            Collectors.toMap(
                ds -> ds.getMetadata().getName(),
                ds -> ds.getMetadata().getGeneration(),
                (a, b) -> a,
                TreeMap::new));
  }

  /** The UIDs of the owners of a namespaced object in the operator namespace (null: no object). */
  static List<String> ownerUids(Class<? extends HasMetadata> kind, String name) {
    HasMetadata o = admin.resources(kind).inNamespace(ns).withName(name).get();
    return o == null
        ? null
        : o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  @Test
  @Order(0)
  void aLoneNvidiaDriverRunsAndUpgradesTheDriverAndOutlivesAClusterPolicy() throws Exception {
    // Every status the resource goes through, as "state/reason of the Ready condition".
    List<String> seen = new CopyOnWriteArrayList<>();
    Watch watch =
        admin
            .resources(NVIDIADriver.class)
            .withName("default")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, NVIDIADriver d) {
                    if (d.getStatus() != null && d.getStatus().state != null) {
                      seen.add(d.getStatus().state.value() + "/" + readyReason(d));
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    NVIDIADriver created;
    try {
      created =
          admin
              .resource(
                  nvidiaDriver(
                      """
                      metadata: {name: default}
                      spec: {default: true, repository: nvcr.io/nvidia, image: driver, version: "550.54.15"}
                      """))
              .create();
      eventually(
          Duration.ofMinutes(3),
          () -> {
            assertThat(daemonSets())
                .containsExactly(
                    "nvidia-gpu-driver-default-rhel9", "nvidia-gpu-driver-default-ubuntu22.04");
            assertThat(driverPods())
                .containsEntry(UB0, "nvidia-gpu-driver-default-ubuntu22.04")
                .containsEntry(UB1, "nvidia-gpu-driver-default-ubuntu22.04")
                .containsEntry(UB2, "nvidia-gpu-driver-default-ubuntu22.04")
                .containsEntry(RH0, "nvidia-gpu-driver-default-rhel9");
            assertThat(images())
                .containsEntry(RH0, "nvcr.io/nvidia/driver:550.54.15-rhel9")
                .containsEntry(UB0, "nvcr.io/nvidia/driver:550.54.15-ubuntu22.04")
                .hasSize(4);
            assertThat(seen).last().isEqualTo("ready/" + Conditions.RECONCILED);
          });
    } finally {
      watch.close();
    }
    // Not ready while its DaemonSets had no ready pod, ready once every pool ran.
    assertThat(seen).first().isEqualTo("notReady/" + Conditions.OPERAND_NOT_READY);
    assertThat(get("default").getStatus().driverPools)
        .extracting(s -> s.name + "=" + s.state)
        .containsExactly("rhel9=ready", "ubuntu22.04=ready");
    for (String n : NODES) {
      // No policy labels the nodes: the resource gives them its owner and the deploy label.
      assertThat(labels(n))
          .as(n)
          .containsEntry(DriverOwners.OWNER, "default")
          .containsEntry("nvidia.com/gpu.deploy.driver", "true");
    }
    // A new version rolls out node by node through the driver upgrade, with no policy either.
    patch(NVIDIADriver.class, "default", "{\"spec\":{\"version\":\"570.172.08\"}}");
    eventually(
        Duration.ofMinutes(3),
        () -> {
          assertThat(images())
              .containsEntry(UB0, "nvcr.io/nvidia/driver:570.172.08-ubuntu22.04")
              .containsEntry(UB1, "nvcr.io/nvidia/driver:570.172.08-ubuntu22.04")
              .containsEntry(UB2, "nvcr.io/nvidia/driver:570.172.08-ubuntu22.04")
              .containsEntry(RH0, "nvcr.io/nvidia/driver:570.172.08-rhel9");
          everyNodeUpgradeDone();
          assertThat(get("default").getStatus().state.value()).isEqualTo("ready");
        });
    // What the pods run with besides the DaemonSets, owned by the resource.
    String uid = created.getMetadata().getUid();
    assertThat(ownerUids(ServiceAccount.class, "nvidia-driver")).containsExactly(uid);
    assertThat(ownerUids(ConfigMap.class, "nvidia-driver-startup-probe")).containsExactly(uid);
    Map<String, String> pods = podUids();
    Map<String, Long> generations = generations();

    // A ClusterPolicy that leaves the driver to the resources comes and goes: no driver pod is
    // replaced and no DaemonSet rewritten.
    ClusterPolicy policy = policy();
    policy.getSpec().driver.useNvidiaDriverCRD = true;
    String policyUid = admin.resource(policy).create().getMetadata().getUid();
    eventually(
        Duration.ofMinutes(2),
        () -> {
          ClusterPolicy p = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
          assertThat(p.getStatus()).isNotNull();
          assertThat(p.getStatus().state.value()).isEqualTo("ready");
          // The policy took the driver's service account over beside the resource.
          assertThat(ownerUids(ServiceAccount.class, "nvidia-driver"))
              .containsExactlyInAnyOrder(uid, policyUid);
          everyNodeUpgradeDone();
        });
    assertThat(podUids()).isEqualTo(pods);
    assertThat(generations()).isEqualTo(generations);
    admin.resources(ClusterPolicy.class).withName("cluster-policy").delete();
    eventually(
        Duration.ofMinutes(2),
        () -> {
          assertThat(admin.resources(ClusterPolicy.class).withName("cluster-policy").get())
              .isNull();
          // The garbage collector dropped the policy from the owners, keeping the objects.
          assertThat(ownerUids(ServiceAccount.class, "nvidia-driver")).containsExactly(uid);
          assertThat(ownerUids(ConfigMap.class, "nvidia-driver-startup-probe"))
              .containsExactly(uid);
        });
    assertThat(podUids()).isEqualTo(pods);
    assertThat(generations()).isEqualTo(generations);
    assertThat(get("default").getStatus().state.value()).isEqualTo("ready");

    // Deleting the resource removes what it rendered.
    admin.resources(NVIDIADriver.class).withName("default").delete();
    eventually(
        Duration.ofMinutes(2),
        () -> {
          assertThat(daemonSets()).isEmpty();
          assertThat(driverPods()).isEmpty();
          assertThat(ownerUids(ServiceAccount.class, "nvidia-driver")).isNull();
          assertThat(ownerUids(ConfigMap.class, "nvidia-driver-startup-probe")).isNull();
        });
  }

  @Test
  @Order(1)
  void theClusterPolicyRunsOneDriverDaemonSetPerOs() {
    admin.resource(policy()).create();
    eventually(
        Duration.ofMinutes(3),
        () -> {
          assertThat(daemonSets())
              .containsExactly(
                  "nvidia-driver-daemonset-rhel9", "nvidia-driver-daemonset-ubuntu22.04");
          assertThat(images())
              .containsEntry(RH0, "nvcr.io/nvidia/driver:550.54.15-rhel9")
              .containsEntry(UB0, "nvcr.io/nvidia/driver:550.54.15-ubuntu22.04")
              .hasSize(4);
          everyNodeUpgradeDone();
          ClusterPolicy p = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
          assertThat(p.getStatus()).isNotNull();
          assertThat(p.getStatus().driverPools)
              .extracting(s -> s.name + "=" + s.state)
              .containsExactly("rhel9=ready", "ubuntu22.04=ready");
        });
  }

  @Test
  @Order(2)
  void nvidiaDriverResourcesTakeTheNodesOverThroughTheUpgrade() {
    admin
        .resource(
            nvidiaDriver(
                """
                metadata: {name: default}
                spec:
                  default: true
                  repository: nvcr.io/nvidia
                  image: driver
                  version: "550.54.15"
                  upgradePolicy: {maxParallelUpgrades: 4, maxUnavailable: "100%", validationTimeoutSeconds: 60}
                """))
        .create();
    admin
        .resource(
            nvidiaDriver(
                """
                metadata: {name: pool-b}
                spec:
                  nodeSelector: {pool: b}
                  repository: nvcr.io/nvidia
                  image: driver
                  version: "550.54.15"
                  upgradePolicy: {maxParallelUpgrades: 4, maxUnavailable: "100%", validationTimeoutSeconds: 60}
                """))
        .create();
    patch(
        ClusterPolicy.class,
        "cluster-policy",
        "{\"spec\":{\"driver\":{\"useNvidiaDriverCRD\":true}}}");
    eventually(
        Duration.ofMinutes(4),
        () -> {
          assertThat(daemonSets())
              .containsExactly(
                  "nvidia-gpu-driver-default-rhel9",
                  "nvidia-gpu-driver-default-ubuntu22.04",
                  "nvidia-gpu-driver-pool-b-ubuntu22.04");
          assertThat(driverPods())
              .containsEntry(UB0, "nvidia-gpu-driver-default-ubuntu22.04")
              .containsEntry(UB1, "nvidia-gpu-driver-pool-b-ubuntu22.04")
              .containsEntry(UB2, "nvidia-gpu-driver-pool-b-ubuntu22.04")
              .containsEntry(RH0, "nvidia-gpu-driver-default-rhel9");
          assertThat(images()).hasSize(4);
          everyNodeUpgradeDone();
          assertThat(get("default").getStatus().state.value()).isEqualTo("ready");
          assertThat(get("pool-b").getStatus().state.value()).isEqualTo("ready");
        });
    assertThat(labels(UB0)).containsEntry(DriverOwners.OWNER, "default");
    assertThat(labels(UB1)).containsEntry(DriverOwners.OWNER, "pool-b");
    assertThat(labels(RH0)).containsEntry(DriverOwners.OWNER, "default");
    assertThat(get("default").getStatus().driverPools)
        .extracting(s -> s.name)
        .containsExactly("rhel9", "ubuntu22.04");
    // The policy keeps the driver's service account, which the resources' pods run as.
    assertThat(admin.serviceAccounts().inNamespace(ns).withName("nvidia-driver").get()).isNotNull();
  }

  @Test
  @Order(3)
  void aNodeTwoResourcesSelectIsAReportedConflictThatTouchesNothing() {
    String before = driverPods().get(UB2);
    patch(Node.class, UB2, "{\"metadata\":{\"labels\":{\"team\":\"x\"}}}");
    admin
        .resource(
            nvidiaDriver(
                """
                metadata: {name: team-x}
                spec:
                  nodeSelector: {team: x}
                  repository: nvcr.io/nvidia
                  image: driver
                  version: "560.35.03"
                """))
        .create();
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> {
              for (String d : List.of("team-x", "pool-b")) {
                NVIDIADriver r = get(d);
                assertThat(readyReason(r)).as(d).isEqualTo(Conditions.CONFLICTING_NODE_SELECTOR);
                assertThat(PolicyStatusModel.ready(r.getStatus()).getMessage())
                    .contains(UB2 + " (pool-b, team-x)");
              }
            });
    assertThat(labels(UB2)).containsEntry(DriverOwners.OWNER, "pool-b");
    assertThat(driverPods()).containsEntry(UB2, before);
    assertThat(daemonSets()).noneMatch(n -> n.contains("team-x"));
    assertThat(admin.v1().events().inNamespace(ReconcilerKeys.EVENTS_NAMESPACE).list().getItems())
        .anyMatch(
            e ->
                "team-x".equals(e.getInvolvedObject().getName())
                    && Conditions.CONFLICTING_NODE_SELECTOR.equals(e.getReason()));
    admin.resources(NVIDIADriver.class).withName("team-x").delete();
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> assertThat(get("pool-b").getStatus().state.value()).isEqualTo("ready"));
  }

  @Test
  @Order(4)
  void anIncompatiblePoolIsRefusedWhileTheOtherPoolUpgrades() {
    // Volta GPUs are supported up to branch 580: a 590 driver is refused on the RHEL pool only.
    patch(Node.class, RH0, "{\"metadata\":{\"labels\":{\"nvidia.com/gpu.family\":\"volta\"}}}");
    patch(NVIDIADriver.class, "default", "{\"spec\":{\"version\":\"590.48.01\"}}");
    eventually(
        Duration.ofMinutes(3),
        () -> {
          NVIDIADriver d = get("default");
          assertThat(readyReason(d)).isEqualTo(Conditions.DRIVER_INCOMPATIBLE);
          assertThat(d.getStatus().driverPools)
              .extracting((DriverPoolStatus s) -> s.name + "=" + s.state)
              .containsExactly("rhel9=refused", "ubuntu22.04=ready");
          assertThat(d.getStatus().driverPools.get(0).reason)
              .contains("volta GPUs are supported up to driver branch 580, not 590")
              .contains(RH0);
          assertThat(images())
              .containsEntry(UB0, "nvcr.io/nvidia/driver:590.48.01-ubuntu22.04")
              .containsEntry(RH0, "nvcr.io/nvidia/driver:550.54.15-rhel9");
          everyNodeUpgradeDone();
        });
    DaemonSet rhel =
        admin.apps().daemonSets().inNamespace(ns).withName("nvidia-gpu-driver-default-rhel9").get();
    assertThat(rhel.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .endsWith("550.54.15-rhel9");
  }

  @Test
  @Order(5)
  void gpuDirectRdmaPrerequisitesAreReportedPerNode() {
    patch(NVIDIADriver.class, "pool-b", "{\"spec\":{\"rdma\":{\"enabled\":true}}}");
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> {
              List<NodeRequirement> unmet = get("pool-b").getStatus().gpuDirect;
              assertThat(unmet)
                  .extracting(r -> r.node + "/" + r.feature)
                  .containsExactly(UB1 + "/rdma");
              assertThat(unmet.get(0).missing).contains(DriverChecks.NIC_PRESENT);
              DaemonSet ds =
                  admin
                      .apps()
                      .daemonSets()
                      .inNamespace(ns)
                      .withName("nvidia-gpu-driver-pool-b-ubuntu22.04")
                      .get();
              assertThat(ds.getSpec().getTemplate().getSpec().getContainers())
                  .anyMatch(c -> c.getName().equals("nvidia-peermem-ctr"));
            });
  }

  @Test
  @Order(6)
  void backToThePolicyWithPrecompiledDriversOneDaemonSetPerKernelAndStaleOnesRemoved() {
    eventually(Duration.ofMinutes(2), NvidiaDriverIT::everyNodeUpgradeDone);
    String rhelPod = podUid(RH0);
    patch(
        ClusterPolicy.class,
        "cluster-policy",
        "{\"spec\":{\"driver\":{\"useNvidiaDriverCRD\":false,\"usePrecompiled\":true,"
            + "\"version\":\"550\"}}}");
    String kernel105 = "nvidia-driver-daemonset-5.15.0-105-generic-ubuntu22.04";
    eventually(
        Duration.ofMinutes(4),
        () -> {
          // No precompiled images for RHEL: that pool is refused and keeps what it runs.
          assertThat(daemonSets()).containsExactly(kernel105);
          assertThat(driverPods())
              .containsEntry(UB0, kernel105)
              .containsEntry(UB1, kernel105)
              .containsEntry(UB2, kernel105)
              .containsEntry(RH0, "null");
          assertThat(images())
              .containsEntry(UB0, "nvcr.io/nvidia/driver:550-5.15.0-105-generic-ubuntu22.04");
          for (String n : List.of(UB0, UB1, UB2)) {
            assertThat(labels(n)).as(n).containsEntry(UpgradeKeys.STATE, "upgrade-done");
          }
          ClusterPolicy p = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
          assertThat(PolicyStatusModel.ready(p.getStatus()).getReason())
              .isEqualTo(Conditions.DRIVER_INCOMPATIBLE);
          assertThat(p.getStatus().driverPools)
              .extracting(x -> x.name + "=" + x.state)
              .contains("rhel9/5.14.0-427.el9.x86_64=refused");
          assertThat(get("default").getStatus().state.value()).isEqualTo("ignored");
        });
    assertThat(podUid(RH0)).as("the refused pool's node keeps its driver pod").isEqualTo(rhelPod);
    // A kernel update: the new kernel's DaemonSet appears; the old one goes with its last node.
    String kernel106 = "nvidia-driver-daemonset-5.15.0-106-generic-ubuntu22.04";
    for (String n : List.of(UB0, UB1, UB2)) {
      patch(
          Node.class,
          n,
          "{\"metadata\":{\"labels\":{\"feature.node.kubernetes.io/kernel-version.full\":"
              + "\"5.15.0-106-generic\"}}}");
      if (n.equals(UB0)) {
        await()
            .atMost(Duration.ofMinutes(2))
            .untilAsserted(
                () -> assertThat(daemonSets()).containsExactlyInAnyOrder(kernel105, kernel106));
      }
    }
    eventually(
        Duration.ofMinutes(3),
        () -> {
          assertThat(daemonSets()).containsExactly(kernel106);
          assertThat(images())
              .containsEntry(UB0, "nvcr.io/nvidia/driver:550-5.15.0-106-generic-ubuntu22.04")
              .containsEntry(UB1, "nvcr.io/nvidia/driver:550-5.15.0-106-generic-ubuntu22.04")
              .containsEntry(UB2, "nvcr.io/nvidia/driver:550-5.15.0-106-generic-ubuntu22.04");
        });
  }
}
