package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The device plugin and the kubelet side on a real control plane (API server, scheduler,
 * controller-manager): Nodes created and kept Ready here, one plugin per node with a simulated
 * backend, pods placed by the real scheduler on the advertised resources.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DevicePluginIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String GPU = PluginNames.GPU_RESOURCE;
  private static final String H100 = "gpu-h100";
  private static final String MIG = "gpu-mig";
  private static final String SHARED = "gpu-ts";
  private static final DateTimeFormatter MICRO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

  /** One directory for the whole class: the nodes' sockets live across test methods. */
  private Path dir;

  private ControlPlane cp;
  private KubernetesClient admin;
  private ScheduledExecutorService heartbeat;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, SimulatedBackend> backends = new TreeMap<>();
  private final Map<String, KubeletDeviceManager> kubelets = new TreeMap<>();

  @BeforeAll
  void startControlPlane() throws Exception {
    dir = Files.createTempDirectory("device-plugin-it");
    cp =
        ControlPlane.builder()
            .controllerManager(true)
            .scheduler(true)
            .nodes(List.of(H100, MIG, SHARED))
            .start();
    admin = cp.client();
    heartbeat = Executors.newSingleThreadScheduledExecutor();
    for (String node : List.of(H100, MIG, SHARED)) {
      registerNode(node);
    }
    heartbeat.scheduleAtFixedRate(this::renewLeases, 5, 5, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    if (heartbeat != null) {
      heartbeat.shutdownNow();
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    if (cp != null) {
      cp.close();
    }
    if (dir != null) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void eightH100sAreAdvertisedAndPodsGetDistinctGpus() throws Exception {
    startNode(H100, "dgx-h100", ConfigSource.NONE, Map.of());
    awaitAllocatable(H100, GPU, "8");
    assertThat(node(H100).getStatus().getCapacity().get(GPU)).isEqualTo(new Quantity("8"));

    String ns = namespace("dp-h100");
    for (int i = 0; i < 8; i++) {
      admin.pods().inNamespace(ns).resource(pod("cuda-" + i, H100, GPU, 1)).create();
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                podResources(H100).stream().filter(p -> p.getNamespace().equals(ns)).count() == 8);
    List<String> assigned =
        podResources(H100).stream()
            .filter(p -> p.getNamespace().equals(ns))
            .flatMap(p -> p.getContainers(0).getDevicesList().stream())
            .flatMap(d -> d.getDeviceIdsList().stream())
            .toList();
    assertThat(assigned)
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(
            backends.get(H100).devices().stream().map(GpuDevice::uuid).toList());
    for (Pod p : admin.pods().inNamespace(ns).list().getItems()) {
      assertThat(p.getSpec().getNodeName()).isEqualTo(H100);
    }

    // A ninth is left Pending by the real scheduler: nothing allocatable remains.
    admin.pods().inNamespace(ns).resource(pod("cuda-8", H100, GPU, 1)).create();
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("cuda-8").get();
              return p.getStatus().getConditions().stream()
                  .anyMatch(
                      c ->
                          c.getType().equals("PodScheduled")
                              && "Unschedulable".equals(c.getReason())
                              && c.getMessage().contains("Insufficient nvidia.com/gpu"));
            });
  }

  @Test
  void mixedMigNodeAdvertisesEachProfileWithItsCount() throws Exception {
    startNode(MIG, "dgx-h100-mig-mixed", ConfigSource.NONE, Map.of("MIG_STRATEGY", "mixed"));
    Map<String, Long> expected =
        backends.get(MIG).allMigDevices().stream()
            .collect(
                Collectors.groupingBy(
                    m -> PluginNames.MIG_RESOURCE_PREFIX + m.profile().resourceSuffix(),
                    TreeMap::new,
                    Collectors.counting()));
    assertThat(expected)
        .containsEntry("nvidia.com/mig-1g.10gb", 16L)
        .containsEntry("nvidia.com/mig-2g.20gb", 8L)
        .containsEntry("nvidia.com/mig-3g.40gb", 8L);
    for (var e : expected.entrySet()) {
      awaitAllocatable(MIG, e.getKey(), Long.toString(e.getValue()));
    }
    assertThat(node(MIG).getStatus().getAllocatable()).doesNotContainKey(GPU);

    String ns = namespace("dp-mig");
    admin.pods().inNamespace(ns).resource(pod("small", MIG, "nvidia.com/mig-1g.10gb", 2)).create();
    await().atMost(WAIT).until(() -> !podResources(MIG).isEmpty());
    List<String> ids =
        podResources(MIG).get(0).getContainers(0).getDevicesList().stream()
            .flatMap(d -> d.getDeviceIdsList().stream())
            .toList();
    assertThat(ids)
        .hasSize(2)
        .allMatch(
            id ->
                backends.get(MIG).allMigDevices().stream()
                    .filter(m -> m.profile().name().equals("1g.10gb"))
                    .map(MigDevice::uuid)
                    .anyMatch(id::equals));
  }

  @Test
  void labelSwitchesToTimeSlicingWithFourReplicasKeepingAllocations() throws Exception {
    Path configs = Files.createDirectories(dir.resolve("available-configs"));
    Files.writeString(configs.resolve("default"), "version: v1\n");
    Files.writeString(
        configs.resolve("ts4"),
        """
        version: v1
        sharing:
          timeSlicing:
            failRequestsGreaterThanOne: true
            resources:
              - name: nvidia.com/gpu
                replicas: 4
        """);
    startNode(SHARED, "dgx-h100", new ConfigSource(null, configs, "default"), Map.of());
    awaitAllocatable(SHARED, GPU, "8");

    String ns = namespace("dp-ts");
    admin.pods().inNamespace(ns).resource(pod("before", SHARED, GPU, 1)).create();
    await().atMost(WAIT).until(() -> podResources(SHARED).size() == 1);

    admin
        .nodes()
        .withName(SHARED)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToLabels(PluginNames.CONFIG_LABEL, "ts4")
                    .endMetadata()
                    .build());
    awaitAllocatable(SHARED, GPU, "32");
    assertThat(podResources(SHARED)).extracting(PodResources::getName).containsExactly("before");

    // Two replicas in one request: the plugin refuses and the pod fails with its message.
    admin.pods().inNamespace(ns).resource(pod("greedy", SHARED, GPU, 2)).create();
    await()
        .atMost(WAIT)
        .until(
            () ->
                "Failed"
                    .equals(
                        admin
                            .pods()
                            .inNamespace(ns)
                            .withName("greedy")
                            .get()
                            .getStatus()
                            .getPhase()));
    Pod greedy = admin.pods().inNamespace(ns).withName("greedy").get();
    assertThat(greedy.getStatus().getReason()).isEqualTo("UnexpectedAdmissionError");
    assertThat(greedy.getStatus().getMessage())
        .contains("maximum request size for shared resources is 1");
  }

  private void startNode(String node, String profile, ConfigSource source, Map<String, String> env)
      throws Exception {
    SimulatedBackend backend = new SimulatedBackend(HardwareProfiles.node(profile), node);
    KubeletDeviceManager kubelet =
        new KubeletDeviceManager(node, dir.resolve(node), cp.nodeClient(node)).start().watchPods();
    DevicePluginRunner runner =
        new DevicePluginRunner(
            backend,
            io.gpuoperator.config.Settings.ofEnv(env),
            source,
            admin,
            node,
            kubelet.kubeletSocket(),
            null,
            Duration.ZERO,
            Duration.ofMillis(200));
    runner.start();
    closeables.add(backend);
    closeables.add(kubelet);
    closeables.add(runner);
    backends.put(node, backend);
    kubelets.put(node, kubelet);
  }

  private void registerNode(String name) {
    // ISO_INSTANT always prints the seconds (ZonedDateTime.toString drops ":00", which the API
    // server refuses).
    String now =
        DateTimeFormatter.ISO_INSTANT.format(
            java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels("kubernetes.io/hostname", name)
            .endMetadata()
            .withNewStatus()
            .addToCapacity("cpu", new Quantity("64"))
            .addToCapacity("memory", new Quantity("512Gi"))
            .addToCapacity("pods", new Quantity("110"))
            .addToAllocatable("cpu", new Quantity("64"))
            .addToAllocatable("memory", new Quantity("512Gi"))
            .addToAllocatable("pods", new Quantity("110"))
            .withConditions(
                new NodeCondition(
                    now, now, "kubelet is posting ready status", "KubeletReady", "True", "Ready"))
            .endStatus()
            .build();
    KubernetesClient nodeClient = cp.nodeClient(name);
    nodeClient.nodes().resource(node).create();
    nodeClient
        .nodes()
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), statusJson(now));
    Lease lease =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("kube-node-lease")
            .endMetadata()
            .withNewSpec()
            .withHolderIdentity(name)
            .withLeaseDurationSeconds(40)
            .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
            .endSpec()
            .build();
    nodeClient.resources(Lease.class).inNamespace("kube-node-lease").resource(lease).create();
  }

  private static String statusJson(String now) {
    return "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\","
        + "\"message\":\"kubelet is posting ready status\",\"lastHeartbeatTime\":\""
        + now
        + "\",\"lastTransitionTime\":\""
        + now
        + "\"}]}}";
  }

  private void renewLeases() {
    for (String name : List.of(H100, MIG, SHARED)) {
      try {
        String renew = MICRO.format(ZonedDateTime.now(ZoneOffset.UTC));
        cp.nodeClient(name)
            .resources(Lease.class)
            .inNamespace("kube-node-lease")
            .withName(name)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"renewTime\":\"" + renew + "\"}}");
      } catch (RuntimeException e) {
        // The next renewal tries again; the node has 40 s.
      }
    }
  }

  private Node node(String name) {
    return admin.nodes().withName(name).get();
  }

  private void awaitAllocatable(String node, String resource, String count) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Map<String, Quantity> a = node(node).getStatus().getAllocatable();
              return a != null && new Quantity(count).equals(a.get(resource));
            });
  }

  private String namespace(String prefix) {
    return io.gpuoperator.sim.junit.ControlPlaneExtension.newNamespace(admin, prefix);
  }

  private List<PodResources> podResources(String node) {
    ManagedChannel ch = UnixSockets.channel(kubelets.get(node).podResourcesSocket());
    try {
      return PodResourcesListerGrpc.newBlockingStub(ch)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .list(ListPodResourcesRequest.getDefaultInstance())
          .getPodResourcesList();
    } finally {
      ch.shutdownNow();
    }
  }

  private static Pod pod(String name, String node, String resource, int count) {
    return PluginHarness.gpuPod(name, resource, count)
        .editSpec()
        .addToNodeSelector("kubernetes.io/hostname", node)
        .editFirstContainer()
        .withImage("nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04")
        .endContainer()
        .endSpec()
        .build();
  }
}
