package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.gpuoperator.kubelet.podresources.v1.ContainerDevices;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.node.exporter.PodResourcesClient;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.mig.MigLabels;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * End to end: one simulation (control plane with controller-manager and scheduler, simulated
 * kubelets, in-process agents, the operator) of a small cluster under a policy with the mixed MIG
 * strategy, a time-slicing device-plugin config and driver auto-upgrade, shared by the ordered
 * tests below.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulateIT {
  static final String H100 = "e2e-h100";
  static final String L4 = "e2e-l4";
  static final String CPU = "e2e-cpu";
  static final String MIG = "e2e-mig";
  static final String WORKLOADS = "workloads";
  static final Map<String, Integer> MIG_LAYOUT = Map.of("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1);

  static final String POLICY =
      Simulation.clusterPolicy(
          """
          mig:
            strategy: mixed
          dcgm:
            enabled: false
          dcgmExporter:
            env:
            - name: DCGM_EXPORTER_INTERVAL
              value: "2000"
          devicePlugin:
            config:
              name: time-slicing
          driver:
            upgradePolicy:
              autoUpgrade: true
              maxParallelUpgrades: 2
              podDeletion:
                force: true
          """);

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.of(
          b ->
              SimulationFixture.recovering(b, Duration.ofSeconds(2), Duration.ofSeconds(10))
                  .policy(POLICY, "SimulateIT policy")
                  .beforePolicy(SimulationFixture.timeSlicing("gpu-operator", "ts4", 4)),
          NodeDescription.gpuNode(H100, "H100-SXM5-80GB", 8),
          NodeDescription.gpuNode(L4, "L4", 1),
          NodeDescription.cpuNode(CPU),
          NodeDescription.gpuNode(MIG, "H100-SXM5-80GB", 1).withMig(MIG_LAYOUT));

  /** A pod of the workloads namespace. */
  static PodResource workload(String name) {
    return SIM.client().pods().inNamespace(WORKLOADS).withName(name);
  }

  static void createWorkload(Pod pod) {
    SIM.client().pods().inNamespace(WORKLOADS).resource(pod).create();
  }

  @BeforeAll
  static void workloads() {
    ControlPlaneExtension.createNamespace(SIM.client(), WORKLOADS, Map.of());
  }

  @Test
  @Order(1)
  void clusterBecomesReadyWithEveryGpuNodeLabelledAndAdvertised() throws Exception {
    List<SimulationStatus> seen = new ArrayList<>();
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), seen::add);
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
    Map<String, SimulationStatus.NodeRow> rows =
        status.nodes().stream().collect(Collectors.toMap(SimulationStatus.NodeRow::name, r -> r));
    assertThat(rows.get(H100).product()).isEqualTo("NVIDIA-H100-80GB-HBM3");
    assertThat(rows.get(L4).product()).isEqualTo("NVIDIA-L4");
    assertThat(rows.get(MIG).product()).startsWith("NVIDIA-H100");
    assertThat(rows.get(CPU).product()).isNull();
    assertThat(rows.get(H100).gpuAllocatable()).isEqualTo(8);
    assertThat(rows.get(L4).gpuAllocatable()).isEqualTo(1);
    assertThat(rows.get(CPU).resources()).isEmpty();
    assertThat(rows.get(CPU).operands()).isZero();
    assertThat(rows.get(H100).operands()).isPositive().isEqualTo(rows.get(H100).operandsReady());
    // Progress was observed on the way, not only the end state.
    assertThat(seen.size()).isGreaterThan(1);
    assertThat(seen.get(0).ready()).isFalse();
  }

  @Test
  @Order(2)
  void mixedStrategyNodeAdvertisesItsMigLayout() {
    SimulationStatus.NodeRow mig = row(MIG);
    assertThat(mig.resources())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "nvidia.com/mig-1g.10gb", 2L,
                "nvidia.com/mig-2g.20gb", 1L,
                "nvidia.com/mig-3g.40gb", 1L));
    // Under the mixed strategy a MIG GPU is not also advertised whole.
    assertThat(mig.gpuAllocatable()).isZero();
  }

  @Test
  @Order(3)
  void gpuPodIsScheduledOnAGpuNodeWithItsDeviceInPodResources() throws Exception {
    createWorkload(WorkloadPods.gpuPod("trainer", 1, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(WorkloadPods.phase(workload("trainer").get())).isEqualTo("Running"));
    Pod pod = workload("trainer").get();
    String node = pod.getSpec().getNodeName();
    assertThat(node).isIn(H100, L4);
    List<String> ids = deviceIds(node, "trainer");
    assertThat(ids).hasSize(1);
    assertThat(SIM.sim().backends().backend(node).deviceByUuid(ids.get(0))).isPresent();
    workload("trainer").withGracePeriod(0).delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> workload("trainer").get() == null);
  }

  @Test
  @Order(4)
  void podAskingForMoreGpusThanAnyNodeHasStaysPendingWithTheSchedulersReason() {
    createWorkload(WorkloadPods.gpuPod("too-big", 9, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Pod p = workload("too-big").get();
              WorkloadPods.assertUnschedulable(p, "Insufficient nvidia.com/gpu");
              List<Event> events =
                  SIM.client().v1().events().inNamespace(WORKLOADS).list().getItems().stream()
                      .filter(e -> "too-big".equals(e.getInvolvedObject().getName()))
                      .toList();
              assertThat(events).anyMatch(e -> "FailedScheduling".equals(e.getReason()));
            });
  }

  @Test
  @Order(5)
  void timeSlicingWithFourReplicasAdvertisesFourTimesTheGpusAndFourPodsShareOne() throws Exception {
    SIM.label(L4, "nvidia.com/device-plugin.config", "ts4");
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(row(L4).gpuAllocatable()).isEqualTo(4));
    for (int i = 0; i < 4; i++) {
      createWorkload(WorkloadPods.gpuPod("shared-" + i, 1, L4));
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              for (int i = 0; i < 4; i++) {
                assertThat(WorkloadPods.phase(workload("shared-" + i).get())).isEqualTo("Running");
              }
            });
    Set<String> physical = new java.util.HashSet<>();
    for (int i = 0; i < 4; i++) {
      List<String> ids = deviceIds(L4, "shared-" + i);
      assertThat(ids).hasSize(1);
      assertThat(ids.get(0)).contains("::");
      physical.add(ids.get(0).substring(0, ids.get(0).indexOf("::")));
    }
    assertThat(physical).hasSize(1);
    assertThat(SIM.sim().backends().backend(L4).deviceByUuid(physical.iterator().next()))
        .isPresent();
  }

  @Test
  @Order(6)
  void aPodHoldingAMigDeviceGetsExporterSeriesGoneWithinOneCollectionOfItsDeletion()
      throws Exception {
    Pod pod = WorkloadPods.gpuPod("mig-infer", 0, MIG);
    pod.getSpec().getContainers().get(0).setName("server");
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setLimits(Map.of("nvidia.com/mig-1g.10gb", new Quantity("1")));
    // The admission plugin tolerates taints named after the requested resource only.
    pod.getSpec()
        .setTolerations(
            List.of(
                new io.fabric8.kubernetes.api.model.TolerationBuilder()
                    .withKey("nvidia.com/gpu")
                    .withOperator("Exists")
                    .withEffect("NoSchedule")
                    .build()));
    createWorkload(pod);
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> "Running".equals(WorkloadPods.phase(workload("mig-infer").get())));
    await().atMost(Duration.ofMinutes(1)).until(() -> SIM.sim().exporterPort(MIG) != null);
    await().atMost(Duration.ofMinutes(1)).until(() -> metrics(MIG).contains("pod=\"mig-infer\""));
    String line =
        metrics(MIG)
            .lines()
            .filter(l -> l.startsWith("DCGM_FI_DEV_FB_USED{") && l.contains("pod=\"mig-infer\""))
            .findFirst()
            .orElseThrow();
    assertThat(line)
        .contains("GPU_I_PROFILE=\"1g.10gb\"")
        .contains("namespace=\"" + WORKLOADS + "\"")
        .contains("container=\"server\"")
        .contains("Hostname=\"" + MIG + "\"");
    workload("mig-infer").delete();
    await().atMost(Duration.ofMinutes(1)).until(() -> workload("mig-infer").get() == null);
    long deletedAt = collections(metrics(MIG));
    await().atMost(Duration.ofMinutes(1)).until(() -> !metrics(MIG).contains("mig-infer"));
    // Gone by the collection after the one running when the pod went away.
    assertThat(collections(metrics(MIG)) - deletedAt).isLessThanOrEqualTo(2);
  }

  static String metrics(String node) throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    return http.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(
                        "http://127.0.0.1:" + SIM.sim().exporterPort(node) + "/metrics"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  static long collections(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("gpu_exporter_collections_total "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
        .findFirst()
        .orElseThrow();
  }

  @Test
  @Order(7)
  void killedKubeletMakesTheNodeNotReadyAndItsRestartBringsTheGpusBack() {
    SimulatedKubelet k = SIM.sim().kubelet(H100);
    int before = SIM.sim().devicePlugins(H100).devices().registrations("nvidia.com/gpu");
    assertThat(before).isPositive();
    k.kill();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(row(H100).nodeReady()).isEqualTo("Unknown"));
    k.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(SIM.sim().devicePlugins(H100).devices().registrations("nvidia.com/gpu"))
                  .isGreaterThan(before);
              SimulationStatus.NodeRow r = row(H100);
              assertThat(r.nodeReady()).isEqualTo("True");
              assertThat(r.gpuAllocatable()).isEqualTo(8);
            });
  }

  @Test
  @Order(8)
  void aMigChangeTheHardwareRefusesEndsFailedWithTheReasonAndTheOperandsBack() {
    // GPU 3 is busy: enabling MIG needs a reset, which it refuses.
    ((SimulatedBackend) SIM.sim().backends().backend(H100)).setInUse(3, true);
    String dp = Labels.deploy("device-plugin");
    SIM.label(H100, MigLabels.CONFIG, "all-1g.10gb");
    await()
        .atMost(Duration.ofMinutes(3))
        .untilAsserted(
            () -> assertThat(SIM.labels(H100)).containsEntry(MigLabels.STATE, MigLabels.FAILED));
    assertThat(SIM.labels(H100)).containsEntry(dp, "true");
    // The Event is recorded right after the state label: wait for it.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        SIM.client().v1().events().inNamespace("default").list().getItems().stream()
                            .filter(e -> H100.equals(e.getInvolvedObject().getName()))
                            .filter(e -> "MigConfigFailed".equals(e.getReason()))
                            .map(Event::getMessage)
                            .toList())
                    .singleElement()
                    .asString()
                    .contains("GPU 3: the MIG mode change needs a GPU reset, which failed"));
    await()
        .atMost(Duration.ofMinutes(2))
        .untilAsserted(() -> assertThat(row(H100).gpuAllocatable()).isEqualTo(8));
    assertThat(SIM.sim().backends().backend(H100).migMode(0).current()).isFalse();
  }

  @Test
  @Order(9)
  void migManagerAppliesAllOneGOnTheH100NodeAndASecondTimeChangesNothing() throws Exception {
    ((SimulatedBackend) SIM.sim().backends().backend(H100)).setInUse(3, false);
    String dp = Labels.deploy("device-plugin");
    List<String> deployValues = new java.util.concurrent.CopyOnWriteArrayList<>();
    Watcher<Node> recorder =
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, Node n) {
            deployValues.add(String.valueOf(n.getMetadata().getLabels().get(dp)));
          }

          @Override
          public void onClose(WatcherException cause) {}
        };
    try (Watch w = SIM.client().nodes().withName(H100).watch(recorder)) {
      // Removing the state asks for the same value again: a retry now that GPU 3 is free.
      SIM.label(H100, MigLabels.STATE, null);
      await()
          .atMost(Duration.ofMinutes(4))
          .untilAsserted(
              () -> {
                assertThat(SIM.labels(H100)).containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
                assertThat(row(H100).resources()).containsEntry("nvidia.com/mig-1g.10gb", 56L);
                assertThat(SIM.labels(H100)).containsEntry("nvidia.com/mig-1g.10gb.count", "56");
              });
    }
    assertThat(deployValues).contains(MigLabels.PAUSED);
    assertThat(SIM.labels(H100)).containsEntry(dp, "true");
    String pluginPod = devicePluginPod(H100);

    deployValues.clear();
    try (Watch w = SIM.client().nodes().withName(H100).watch(recorder)) {
      SIM.label(H100, MigLabels.CONFIG, "all-1g.10gb"); // the same value again
      SIM.label(H100, MigLabels.STATE, null); // and a forced re-check of it
      await()
          .atMost(Duration.ofMinutes(1))
          .untilAsserted(
              () -> assertThat(SIM.labels(H100)).containsEntry(MigLabels.STATE, MigLabels.SUCCESS));
    }
    assertThat(deployValues).isNotEmpty().doesNotContain(MigLabels.PAUSED);
    assertThat(devicePluginPod(H100)).isEqualTo(pluginPod);
    assertThat(row(H100).resources()).containsEntry("nvidia.com/mig-1g.10gb", 56L);
  }

  private static String devicePluginPod(String node) {
    return SIM
        .client()
        .pods()
        .inNamespace(SIM.sim().namespace())
        .withLabel("app", "nvidia-device-plugin-daemonset")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .map(p -> p.getMetadata().getUid())
        .findFirst()
        .orElse(null);
  }

  @Test
  @Order(10)
  void aNewDriverVersionRollsOutNodeByNodeAndTheStackComesBack() {
    await()
        .atMost(Duration.ofMinutes(2))
        .untilAsserted(() -> assertThat(SIM.sim().status().ready()).isTrue());
    List<String> gpuNodes = List.of(H100, L4, MIG);
    int registrations = SIM.sim().devicePlugins(L4).devices().registrations("nvidia.com/gpu");
    assertThat(workload("shared-0").get()).isNotNull();
    SIM.client()
        .resources(io.gpuoperator.api.v1.ClusterPolicy.class)
        .withName("cluster-policy")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"spec\":{\"driver\":{\"repository\":\"nvcr.io/nvidia\",\"image\":\"driver\","
                + "\"version\":\"999.1\"}}}");
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              for (String n : gpuNodes) {
                assertThat(SIM.labels(n))
                    .as(n)
                    .containsEntry("nvidia.com/gpu-driver-upgrade-state", "upgrade-done");
                assertThat(driverImage(n)).as(n).contains(":999.1-");
                assertThat(SIM.client().nodes().withName(n).get().getSpec().getUnschedulable())
                    .as(n)
                    .isNotEqualTo(Boolean.TRUE);
              }
              SimulationStatus status = SIM.sim().status();
              assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
            });
    // The time-sliced GPU pods (no controller: podDeletion.force) were evicted for the restart.
    assertThat(SIM.client().pods().inNamespace(WORKLOADS).list().getItems())
        .noneMatch(p -> p.getMetadata().getName().startsWith("shared-"));
    // The device plugin was stopped while the driver restarted, and registered again.
    assertThat(SIM.sim().devicePlugins(L4).devices().registrations("nvidia.com/gpu"))
        .isGreaterThan(registrations);
    assertThat(row(L4).gpuAllocatable()).isEqualTo(4);
    assertThat(SIM.client().v1().events().inNamespace("default").list().getItems())
        .noneMatch(e -> "DriverUpgradeFailed".equals(e.getReason()));
    var progress =
        SIM.client()
            .resources(io.gpuoperator.api.v1.ClusterPolicy.class)
            .withName("cluster-policy")
            .get()
            .getStatus()
            .driverUpgrade;
    assertThat(progress.done).isEqualTo(gpuNodes.size());
    assertThat(progress.phase).isEqualTo("idle");
  }

  private static String driverImage(String node) {
    return SIM
        .client()
        .pods()
        .inNamespace(SIM.sim().namespace())
        .withLabel("app.kubernetes.io/component", "nvidia-driver")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getSpec().getContainers().get(0).getImage())
        .findFirst()
        .orElse("");
  }

  @Test
  @Order(11)
  void closingLeavesNoProcessAndNoDirectory() throws Exception {
    List<Long> pids = SIM.sim().controlPlane().pids();
    Path cpDir = SIM.sim().controlPlane().directory();
    Path nodesDir = SIM.sim().nodesRoot();
    assertThat(pids).isNotEmpty();
    assertThat(nodesDir).exists();
    SIM.sim().close();
    for (long pid : pids) {
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }
    assertThat(Files.exists(cpDir)).as("control-plane dir %s", cpDir).isFalse();
    assertThat(Files.exists(nodesDir)).as("nodes dir %s", nodesDir).isFalse();
  }

  static SimulationStatus.NodeRow row(String node) {
    return SIM.sim().status().nodes().stream().filter(r -> r.name().equals(node)).findFirst().get();
  }

  static List<String> deviceIds(String node, String pod) throws Exception {
    Path socket = SIM.sim().devicePlugins(node).devices().podResourcesSocket();
    assertThat(socket).startsWith(SIM.sim().nodesRoot());
    try (PodResourcesClient podResources = new PodResourcesClient(socket, Duration.ofSeconds(10))) {
      PodResources r =
          podResources.list().getPodResourcesList().stream()
              .filter(p -> p.getName().equals(pod) && p.getNamespace().equals(WORKLOADS))
              .findFirst()
              .orElseThrow(() -> new AssertionError("pod " + pod + " not in pod-resources"));
      List<String> ids = new ArrayList<>();
      for (ContainerDevices d : r.getContainers(0).getDevicesList()) {
        assertThat(d.getResourceName()).isEqualTo("nvidia.com/gpu");
        ids.addAll(d.getDeviceIdsList());
      }
      return ids;
    }
  }
}
