package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.GetPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.gpuoperator.node.dra.Sharing;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dynamic Resource Allocation end to end: the operator deploys the DRA driver from a ClusterPolicy
 * ({@code spec.draDriver}: the plugin's DaemonSet, RBAC and NVIDIA's DeviceClasses), the real
 * kube-scheduler allocates claims written for NVIDIA's DRA driver from the slices our {@code
 * dra-plugin} publishes on simulated nodes, and the simulated kubelets prepare them through the
 * plugin before the pods run and unprepare them after. Nodes: two whole H100s, two A100-40GBs, an
 * H100 split by an administrator (static MIG), and an H100 in MIG mode with no MIG devices
 * (partitionable: the scheduler picks the profile). Last, the device plugin is turned on too: the
 * policy names the conflicting nodes and nothing changes on them until a node is labelled.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DraE2EIT {
  static final Duration WAIT = Duration.ofSeconds(90);

  /** From nothing to every node's plugin registered: driver, toolkit and validation first. */
  static final Duration START = Duration.ofMinutes(5);

  static final String PLUGIN_APP = "nvidia-dra-driver-gpu-kubelet-plugin";
  static final String POLICY =
      Simulation.clusterPolicy(
          """
          devicePlugin: {enabled: false}
          draDriver: {enabled: true}
          dcgm: {enabled: false}
          dcgmExporter: {enabled: false}
          gfd: {enabled: false}
          # The MIG manager would apply all-disabled over the administrator's MIG layout.
          migManager: {enabled: false}
          """);
  static final String H100 = "dra-h100";
  static final String A100 = "dra-a100";
  static final String MIG = "dra-mig";
  static final String PART = "dra-part";
  static final List<String> NODES = List.of(H100, A100, MIG, PART);

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.quick(
          b ->
              b.policy(POLICY, "DraE2EIT policy")
                  // Shared counters (partitionable devices): beta and on by default in 1.36, alpha
                  // and off in 1.33-1.35. Named here so the dependency is stated and survives a
                  // change of the pinned version.
                  .featureGate("DRAPartitionableDevices", true),
          NodeDescription.gpuNode(H100, "H100-SXM5-80GB", 2),
          NodeDescription.gpuNode(A100, "A100-SXM4-40GB", 2),
          NodeDescription.gpuNode(MIG, "H100-SXM5-80GB", 1)
              .withMig(Map.of("1g.10gb", 2, "3g.40gb", 1)),
          // MIG mode on, no MIG devices: every placement is offered.
          NodeDescription.gpuNode(PART, "H100-SXM5-80GB", 1).withMig(Map.of("1g.10gb", 0)));

  static String ns;

  @BeforeAll
  static void setUp() {
    ns = ControlPlaneExtension.newNamespace(SIM.client(), "dra");
  }

  @Test
  @Order(1)
  void theOperatorDeploysThePluginAndEveryNodePublishesItsPool() {
    await()
        .atMost(START)
        .untilAsserted(
            () -> {
              for (String node : NODES) {
                assertThat(SIM.sim().dra(node).manager().drivers()).contains("gpu.nvidia.com");
              }
            });
    // NVIDIA's device classes, as the operator wrote them, and one plugin pod per node.
    assertThat(
            SIM.client()
                .genericKubernetesResources("resource.k8s.io/v1", "DeviceClass")
                .withLabel("nvidia.com/gpu-operator.operand", "dra-driver")
                .list()
                .getItems())
        .extracting(d -> d.getMetadata().getName())
        .containsExactlyInAnyOrder("gpu.nvidia.com", "mig.nvidia.com");
    assertThat(pluginPods()).extracting(p -> p.getSpec().getNodeName()).hasSameElementsAs(NODES);
    assertThat(devices(H100)).containsExactly("gpu-0", "gpu-1");
    assertThat(devices(MIG)).hasSize(3).allMatch(d -> d.startsWith("gpu-0-mig-"));
    assertThat(devices(PART)).hasSize(25);
  }

  @Test
  @Order(2)
  void anH100ClaimLandsOnAnH100RunsAndIsUnpreparedWhenThePodGoes() throws Exception {
    create("h100-80g.yaml");
    createPod("h100-pod", "gpu", "h100-80g", null, null);
    Pod pod = awaitRunning("h100-pod");
    assertThat(pod.getSpec().getNodeName()).isEqualTo(H100);
    JsonNode claim = claimOf(pod, "gpu");
    JsonNode result =
        claim.path("status").path("allocation").path("devices").path("results").get(0);
    assertThat(result.path("driver").asText()).isEqualTo("gpu.nvidia.com");
    assertThat(result.path("pool").asText()).isEqualTo(H100);
    String device = result.path("device").asText();
    assertThat(device).isIn("gpu-0", "gpu-1");
    String uid = claim.path("metadata").path("uid").asText();
    // The kubelet prepared it through the plugin, and pod-resources lists its CDI device.
    assertThat(SIM.sim().dra(H100).manager().preparedClaims()).containsEntry(uid, List.of(device));
    var resources = podResources(H100, "h100-pod");
    var dynamic = resources.getContainers(0).getDynamicResources(0);
    assertThat(dynamic.getClaimResources(0).getDeviceName()).isEqualTo(device);
    assertThat(dynamic.getClaimResources(0).getCdiDevices(0).getName())
        .isEqualTo("k8s.gpu.nvidia.com/claim=" + uid + "-" + device);
    assertThat(cdiSpec(H100, uid)).exists();

    deleteAndAwaitGone("h100-pod");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(SIM.sim().dra(H100).manager().preparedClaims()).isEmpty());
    assertThat(cdiSpec(H100, uid)).doesNotExist();
    // The claim made from the template goes with its pod, freeing the device.
    await()
        .atMost(WAIT)
        .until(() -> claims().stream().noneMatch(c -> uid.equals(c.getMetadata().getUid())));
  }

  @Test
  @Order(3)
  void aClaimNoDeviceSatisfiesStaysPendingWithTheSchedulersReason() throws Exception {
    create("b200.yaml");
    createPod("b200-pod", "gpu", "b200", null, null);
    awaitUnschedulable("b200-pod");
    pod("b200-pod").delete();
  }

  @Test
  @Order(4)
  void aPodAskingForNvidiaComGpuGetsOneThroughDra() throws Exception {
    SIM.client()
        .pods()
        .inNamespace(ns)
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: v1
                kind: Pod
                metadata: {name: classic}
                spec:
                  containers:
                  - name: work
                    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
                    command: [sleep, infinity]
                    resources: {limits: {nvidia.com/gpu: 1}}
                """,
                Pod.class))
        .create();
    Pod pod = awaitRunning("classic");
    // No device plugin on these nodes: the scheduler made a claim from the gpu.nvidia.com class.
    String claimName = pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
    JsonNode claim = claim(claimName);
    String node = pod.getSpec().getNodeName();
    assertThat(
            claim
                .path("status")
                .path("allocation")
                .path("devices")
                .path("results")
                .get(0)
                .path("pool")
                .asText())
        .isEqualTo(node);
    var dynamic = podResources(node, "classic").getContainers(0).getDynamicResources(0);
    assertThat(dynamic.getClaimName()).isEqualTo(claimName);
    deleteAndAwaitGone("classic");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(SIM.sim().dra(node).manager().preparedClaims()).isEmpty());
  }

  @Test
  @Order(5)
  void twoPodsShareOneTimeSlicedGpu() throws Exception {
    create("shared-timesliced.yaml");
    createPod("shared-a", "gpu", null, "shared-gpu", null);
    createPod("shared-b", "gpu", null, "shared-gpu", null);
    Pod a = awaitRunning("shared-a");
    Pod b = awaitRunning("shared-b");
    assertThat(a.getSpec().getNodeName()).isEqualTo(b.getSpec().getNodeName());
    String node = a.getSpec().getNodeName();
    JsonNode claim = claim("shared-gpu");
    assertThat(claim.path("status").path("reservedFor")).hasSize(2);
    String device = firstDevice(claim);
    String uid = claim.path("metadata").path("uid").asText();
    // Prepared once for both pods, with the long time-slice set on that GPU.
    assertThat(SIM.sim().dra(node).manager().preparedClaims()).containsEntry(uid, List.of(device));
    String gpuUuid =
        SIM.sim()
            .backends()
            .backend(node)
            .devices()
            .get(Integer.parseInt(device.substring(4)))
            .uuid();
    assertThat(SIM.sim().draPlugin().timeSlices(node))
        .containsEntry(gpuUuid, Sharing.Interval.LONG);
    assertThat(
            podResources(node, "shared-a").getContainers(0).getDynamicResources(0).getClaimName())
        .isEqualTo("shared-gpu");
    assertThat(
            podResources(node, "shared-b").getContainers(0).getDynamicResources(0).getClaimName())
        .isEqualTo("shared-gpu");

    deleteAndAwaitGone("shared-a");
    // Still used by shared-b: still prepared.
    assertThat(SIM.sim().dra(node).manager().preparedClaims()).containsKey(uid);
    pod("shared-b").delete();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(SIM.sim().dra(node).manager().preparedClaims()).doesNotContainKey(uid));
    assertThat(SIM.sim().draPlugin().timeSlices(node))
        .containsEntry(gpuUuid, Sharing.Interval.DEFAULT);
    SIM.client()
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
        .inNamespace(ns)
        .withName("shared-gpu")
        .delete();
  }

  @Test
  @Order(6)
  void aMigClaimGetsAnExistingMigDevice() throws Exception {
    createMigTemplate("mig-1g", "1g.10gb");
    createPod("mig-pod", "mig", "mig-1g", null, MIG);
    Pod pod = awaitRunning("mig-pod");
    assertThat(pod.getSpec().getNodeName()).isEqualTo(MIG);
    String device = allocatedDevice(pod, "mig");
    assertThat(device).startsWith("gpu-0-mig-1g10gb-19-");
    String migUuid =
        podResources(MIG, "mig-pod")
            .getContainers(0)
            .getDynamicResources(0)
            .getClaimResources(0)
            .getDeviceName();
    assertThat(migUuid).isEqualTo(device);
    pod("mig-pod").delete();
  }

  @Test
  @Order(7)
  void thePartitionableGpuTakesA3gAndTwo2gAndRefusesMore() throws Exception {
    createMigTemplate("part-3g", "3g.40gb");
    createMigTemplate("part-2g", "2g.20gb");
    createMigTemplate("part-1g", "1g.10gb");
    createPod("part-3g", "mig", "part-3g", null, PART);
    awaitRunning("part-3g");
    createPod("part-2g-a", "mig", "part-2g", null, PART);
    awaitRunning("part-2g-a");
    createPod("part-2g-b", "mig", "part-2g", null, PART);
    awaitRunning("part-2g-b");
    List<MigDevice> migs = SIM.sim().backends().backend(PART).migDevices(0);
    assertThat(migs)
        .extracting(m -> m.profile().name())
        .containsExactlyInAnyOrder("3g.40gb", "2g.20gb", "2g.20gb");
    // Every memory slice is taken now: the scheduler refuses a fourth MIG device.
    createPod("part-1g", "mig", "part-1g", null, PART);
    awaitUnschedulable("part-1g");
    assertThat(SIM.sim().backends().backend(PART).migDevices(0)).hasSize(3);
    pod("part-1g").delete();
    pod("part-2g-b").delete();
    await().atMost(WAIT).until(() -> SIM.sim().backends().backend(PART).migDevices(0).size() == 2);
  }

  @Test
  @Order(8)
  void aPluginKilledBetweenPrepareAndUnprepareLosesNothing() throws Exception {
    String claimUid = claimOf(pod("part-3g").get(), "mig").path("metadata").path("uid").asText();
    int before = SIM.sim().backends().backend(PART).migDevices(0).size();
    Path checkpoint =
        SIM.sim()
            .kubelet(PART)
            .dirs()
            .hostPath("/var/lib/kubelet/plugins/gpu.nvidia.com/checkpoint.json");
    assertThat(Files.readString(checkpoint)).contains(claimUid);
    Pod plugin = pluginPod(PART);
    SIM.client().pods().resource(plugin).withGracePeriod(0).delete();
    // The DaemonSet starts a new one; it registers again once its slices are published.
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Pod now = pluginPod(PART);
              assertThat(now.getMetadata().getUid()).isNotEqualTo(plugin.getMetadata().getUid());
              assertThat(now.getStatus().getPhase()).isEqualTo("Running");
              assertThat(SIM.sim().dra(PART).manager().drivers()).contains("gpu.nvidia.com");
            });
    // Nothing was prepared twice or lost: the same MIG devices, the claim still in the checkpoint.
    assertThat(SIM.sim().backends().backend(PART).migDevices(0)).hasSize(before);
    assertThat(Files.readString(checkpoint)).contains(claimUid);
    pod("part-3g").delete();
    pod("part-2g-a").delete();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(SIM.sim().backends().backend(PART).migDevices(0)).isEmpty());
    assertThat(Files.readString(checkpoint)).doesNotContain(claimUid);
  }

  @Test
  @Order(9)
  void theDevicePluginBesideItIsAConflictNamingTheNodesUntilANodeChooses() throws Exception {
    // A merge patch, as the other ITs change a policy: fabric8's edit() sends the resourceVersion
    // it read, and the operator's status writes (still frequent here, the DRA plugin pods having
    // just been replaced) made it a 409 in CI.
    SIM.client()
        .resources(ClusterPolicy.class)
        .withName(SIM.sim().policyName())
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"devicePlugin\":{\"enabled\":true}}}");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(readyCondition().getReason())
                    .isEqualTo(Conditions.CONFLICTING_GPU_ALLOCATORS));
    assertThat(readyCondition().getMessage())
        .contains("would both serve the GPUs of 4 nodes: " + String.join(", ", sorted(NODES)));
    // Nothing changed on them: the device plugin runs nowhere, the DRA plugin everywhere.
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(SIM.daemonSet("nvidia-device-plugin-daemonset").getStatus())
                    .satisfies(st -> assertThat(st.getObservedGeneration()).isPositive())
                    .satisfies(st -> assertThat(st.getDesiredNumberScheduled()).isZero()));
    // The DRA plugin keeps running on every node (its pods may be being replaced at this moment
    // when the policy edit changed its template: wait for the count, not one listing).
    await().atMost(WAIT).untilAsserted(() -> assertThat(pluginPods()).hasSize(NODES.size()));

    // The A100 node chooses the device plugin: it moves, the others stay in conflict.
    SIM.client()
        .nodes()
        .withName(A100)
        .edit(
            n -> {
              n.getMetadata().getLabels().put("nvidia.com/gpu.deploy.dra-driver", "false");
              return n;
            });
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              var node = SIM.client().nodes().withName(A100).get();
              assertThat(node.getMetadata().getLabels())
                  .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
              assertThat(node.getStatus().getAllocatable().get("nvidia.com/gpu").getAmount())
                  .isEqualTo("2");
              assertThat(pluginPods())
                  .extracting(p -> p.getSpec().getNodeName())
                  .doesNotContain(A100);
              assertThat(readyCondition().getMessage())
                  .contains("of 3 nodes:")
                  .doesNotContain(A100);
            });
  }

  // ---- helpers

  static List<Pod> pluginPods() {
    return SIM.client()
        .pods()
        .inNamespace(SIM.sim().namespace())
        .withLabel("app", PLUGIN_APP)
        .list()
        .getItems();
  }

  static Pod pluginPod(String node) {
    return pluginPods().stream()
        .filter(p -> node.equals(p.getSpec().getNodeName()))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no DRA plugin pod on " + node));
  }

  static List<String> devices(String node) {
    return SIM
        .client()
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .flatMap(s -> toList(json(s).path("spec").path("devices")).stream())
        .map(d -> d.path("name").asText())
        .toList();
  }

  static String resource(String name) throws IOException {
    try (InputStream in = DraE2EIT.class.getResourceAsStream("/dra/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static InputStream stream(String text) {
    return new java.io.ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  static void create(String file) throws IOException {
    for (HasMetadata o :
        SIM.client()
            .load(new java.io.ByteArrayInputStream(resource(file).getBytes(StandardCharsets.UTF_8)))
            .items()) {
      SIM.client().resource(o).inNamespace(ns).create();
    }
  }

  static void createMigTemplate(String name, String profile) throws IOException {
    String yaml = resource("mig-profile.yaml").replace("NAME", name).replace("PROFILE", profile);
    SIM.client()
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaimTemplate")
        .inNamespace(ns)
        .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
        .create();
  }

  /** A pod whose container uses one claim, from a template or by name, optionally on a node. */
  static void createPod(String name, String claim, String template, String claimName, String node) {
    String source =
        template != null
            ? "resourceClaimTemplateName: " + template
            : "resourceClaimName: " + claimName;
    String selector =
        node == null ? "" : "  nodeSelector: {kubernetes.io/hostname: " + node + "}\n";
    String yaml =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: "
            + name
            + "}\nspec:\n"
            + selector
            + "  resourceClaims:\n  - name: "
            + claim
            + "\n    "
            + source
            + "\n  containers:\n  - name: work\n    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
            + "    command: [sleep, infinity]\n    resources:\n      claims:\n      - name: "
            + claim
            + "\n";
    SIM.client().pods().inNamespace(ns).resource(Serialization.unmarshal(yaml, Pod.class)).create();
  }

  static PodResource pod(String name) {
    return SIM.client().pods().inNamespace(ns).withName(name);
  }

  static void deleteAndAwaitGone(String name) {
    pod(name).delete();
    await().atMost(WAIT).until(() -> pod(name).get() == null);
  }

  /** Waits for the scheduler to find no device for the pod's claims. */
  static void awaitUnschedulable(String name) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              PodCondition scheduled = condition(name, "PodScheduled");
              assertThat(scheduled).isNotNull();
              assertThat(scheduled.getStatus()).isEqualTo("False");
              assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
              assertThat(scheduled.getMessage()).contains("cannot allocate all claims");
            });
  }

  static Pod awaitRunning(String name) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Pod p = pod(name).get();
              return p != null
                  && p.getStatus() != null
                  && "Running".equals(p.getStatus().getPhase());
            });
    return pod(name).get();
  }

  static PodCondition condition(String pod, String type) {
    Pod p = pod(pod).get();
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElse(null);
  }

  static JsonNode claimOf(Pod pod, String podClaim) {
    String name =
        pod.getStatus().getResourceClaimStatuses().stream()
            .filter(s -> s.getName().equals(podClaim))
            .findFirst()
            .orElseThrow()
            .getResourceClaimName();
    return claim(name);
  }

  static String allocatedDevice(Pod pod, String podClaim) {
    return firstDevice(claimOf(pod, podClaim));
  }

  /** The device allocated first to a ResourceClaim (as JSON). */
  static String firstDevice(JsonNode claim) {
    return claim
        .path("status")
        .path("allocation")
        .path("devices")
        .path("results")
        .get(0)
        .path("device")
        .asText();
  }

  static JsonNode claim(String name) {
    return json(
        SIM.client()
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
            .inNamespace(ns)
            .withName(name)
            .get());
  }

  static List<GenericKubernetesResource> claims() {
    return SIM.client()
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
        .inNamespace(ns)
        .list()
        .getItems();
  }

  static Path cdiSpec(String node, String uid) {
    return SIM.sim()
        .kubelet(node)
        .dirs()
        .cdi()
        .resolve("k8s.gpu.nvidia.com-claim_" + uid + ".json");
  }

  static io.gpuoperator.kubelet.podresources.v1.PodResources podResources(String node, String pod) {
    var channel =
        UnixSockets.channel(SIM.sim().kubelet(node).dirs().podResources().resolve("kubelet.sock"));
    try {
      return PodResourcesListerGrpc.newBlockingStub(channel)
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .get(GetPodResourcesRequest.newBuilder().setPodNamespace(ns).setPodName(pod).build())
          .getPodResources();
    } finally {
      channel.shutdownNow();
    }
  }

  static JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }

  static List<JsonNode> toList(JsonNode array) {
    List<JsonNode> out = new java.util.ArrayList<>();
    array.forEach(out::add);
    return out;
  }

  static io.fabric8.kubernetes.api.model.Condition readyCondition() {
    var policy = SIM.client().resources(ClusterPolicy.class).withName(SIM.sim().policyName()).get();
    return policy.getStatus().conditions.stream()
        .filter(c -> c.getType().equals(Conditions.READY))
        .findFirst()
        .orElseThrow();
  }

  static List<String> sorted(List<String> names) {
    return names.stream().sorted().toList();
  }
}
