package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.GetPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.gpuoperator.node.dra.ComputeDomainCdiSpecModel;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ComputeDomains end to end on this project's own stack: a GPUCluster with {@code
 * computeDomains.enabled} deploys the DRA plugin with its second driver, {@code
 * compute-domain.nvidia.com}, which publishes IMEX channel 0 and the daemon device on the GB200
 * node (in the simulated rack's NVLink clique) and nothing on the H100 node. A workload pod of a
 * ComputeDomain claims a channel through the controller's claim template: the real scheduler
 * allocates it on the GB200, the plugin labels the node with the domain's UID, the operator's
 * daemon DaemonSet lands there (its claim prepared by the same plugin), the daemon becomes Ready in
 * the domain's status, and only then is the channel prepared: the pod runs with the channel's
 * device node in its CDI spec. When the pod goes, the claim is unprepared and the label removed.
 */
class ComputeDomainE2EIT {
  static final Duration START = Duration.ofMinutes(4);
  static final Duration WAIT = Duration.ofSeconds(120);
  static final String GB = "cd-gb200";
  static final String H100 = "cd-h100";
  static final String DRIVER = "compute-domain.nvidia.com";
  static final String LABEL = "resource.nvidia.com/computeDomain";

  @RegisterExtension
  static final SimulationFixture SIM =
      new SimulationFixture(
          Simulation.builder()
              .nodes(
                  List.of(
                      NodeDescription.gpuNode(GB, "GB200-186GB", 2),
                      NodeDescription.gpuNode(H100, "H100-SXM5-80GB", 1)))
              .gpuCluster(
                  """
                  apiVersion: nvidia.com/v1alpha1
                  kind: GPUCluster
                  metadata: {name: gpu-cluster}
                  spec:
                    draDriver:
                      computeDomains: {enabled: true}
                  """)
              .kubeletOptions(KubeletOptions.quick()));

  @Test
  void aChannelClaimRunsOnTheCliqueNodeWithItsChannelAndTheLabelComesAndGoes() throws Exception {
    // No validator runs beside a GPUCluster: the host's driver is taken as validated.
    for (String node : List.of(GB, H100)) {
      Path marker = SIM.sim().kubelet(node).dirs().validations().resolve("driver-ready");
      Files.createDirectories(marker.getParent());
      Files.writeString(marker, "");
    }
    await()
        .atMost(START)
        .untilAsserted(
            () -> {
              assertThat(SIM.sim().dra(GB).manager().drivers())
                  .as("plugins registered on %s; operator pods: %s", GB, pods())
                  .contains("gpu.nvidia.com", DRIVER);
              assertThat(SIM.sim().dra(H100).manager().drivers()).contains(DRIVER);
            });
    assertThat(devices(GB)).containsExactly("channel-0", "daemon-0");
    assertThat(devices(H100)).isEmpty();

    String ns = ControlPlaneExtension.newNamespace(SIM.client(), "cd");
    ComputeDomain cd =
        Serialization.unmarshal(
            """
            apiVersion: resource.nvidia.com/v1beta1
            kind: ComputeDomain
            metadata: {name: imex}
            spec:
              numNodes: 1
              channel:
                resourceClaimTemplate: {name: imex-channel}
            """,
            ComputeDomain.class);
    cd = SIM.client().resources(ComputeDomain.class).inNamespace(ns).resource(cd).create();
    String uid = cd.getMetadata().getUid();
    await()
        .atMost(WAIT)
        .until(
            () ->
                SIM.client()
                        .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaimTemplate")
                        .inNamespace(ns)
                        .withName("imex-channel")
                        .get()
                    != null);
    SIM.client()
        .pods()
        .inNamespace(ns)
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: v1
                kind: Pod
                metadata: {name: mnnvl}
                spec:
                  resourceClaims:
                  - {name: channel, resourceClaimTemplateName: imex-channel}
                  containers:
                  - name: work
                    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
                    command: [sleep, infinity]
                    resources: {claims: [{name: channel}]}
                """,
                Pod.class))
        .create();

    // The label comes first (with the claim's first prepare), bringing the domain's daemon.
    await().atMost(WAIT).until(() -> uid.equals(label(GB)));
    var podRef = SIM.client().pods().inNamespace(ns).withName("mnnvl");
    await().atMost(WAIT).until(() -> "Running".equals(WorkloadPods.phase(podRef.get())));
    Pod pod = podRef.get();
    assertThat(pod.getSpec().getNodeName()).isEqualTo(GB);
    assertThat(label(H100)).isNull();
    // The daemon pod runs on the labelled node and is Ready in the domain's status.
    ComputeDomain ready =
        SIM.client().resources(ComputeDomain.class).inNamespace(ns).withName("imex").get();
    assertThat(ready.getStatus().nodes).extracting(n -> n.name).containsExactly(GB);
    // No feature discovery runs beside a GPUCluster: the plugin labelled the node with its clique,
    // so the daemon's entry names it (NVIDIA's daemon takes as peers only its clique's entries).
    assertThat(ready.getStatus().nodes)
        .extracting(n -> n.cliqueID)
        .containsExactly(SimulatedBackend.SIMULATED_FABRIC.clique());
    // The daemon's claim: the IMEX management capability in its CDI spec, and the IMEX config
    // template NVIDIA's daemon renders in its domain's directory.
    List<String> daemonNodes = new ArrayList<>();
    try (var specs = Files.list(SIM.sim().kubelet(GB).dirs().cdi())) {
      for (Path f :
          specs.filter(f -> f.getFileName().toString().startsWith("k8s." + DRIVER)).toList()) {
        Serialization.jsonMapper()
            .readTree(f.toFile())
            .findValues("path")
            .forEach(v -> daemonNodes.add(v.asText()));
      }
    }
    assertThat(daemonNodes).contains("/dev/nvidia-caps/nvidia-cap1");
    try (var files = Files.walk(SIM.sim().kubelet(GB).dirs().kubeletDir())) {
      assertThat(
              files.filter(
                  f ->
                      f.getFileName().toString().equals("imexd.cfg.tmpl")
                          && f.getParent().getFileName().toString().equals(uid)))
          .hasSize(1);
    }

    JsonNode claim = claimOf(ns, pod);
    String claimUid = claim.path("metadata").path("uid").asText();
    JsonNode result =
        claim.path("status").path("allocation").path("devices").path("results").get(0);
    assertThat(result.path("driver").asText()).isEqualTo(DRIVER);
    assertThat(result.path("pool").asText()).isEqualTo(GB);
    assertThat(result.path("device").asText()).isEqualTo("channel-0");
    // The channel's character device, with the simulated driver's major, in the claim's CDI spec.
    Path spec =
        SIM.sim().kubelet(GB).dirs().cdi().resolve(ComputeDomainCdiSpecModel.fileName(claimUid));
    JsonNode node =
        Serialization.jsonMapper()
            .readTree(spec.toFile())
            .path("devices")
            .get(0)
            .path("containerEdits")
            .path("deviceNodes")
            .get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps-imex-channels/channel0");
    assertThat(node.path("major").asInt()).isEqualTo(234);
    assertThat(node.path("minor").asInt()).isZero();
    // The kubelet passes it to the runtime: pod-resources lists the CDI device.
    var channel =
        UnixSockets.channel(SIM.sim().kubelet(GB).dirs().podResources().resolve("kubelet.sock"));
    try {
      var resources =
          PodResourcesListerGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .get(
                  GetPodResourcesRequest.newBuilder()
                      .setPodNamespace(ns)
                      .setPodName("mnnvl")
                      .build())
              .getPodResources();
      assertThat(
              resources
                  .getContainers(0)
                  .getDynamicResources(0)
                  .getClaimResources(0)
                  .getCdiDevices(0)
                  .getName())
          .isEqualTo(ComputeDomainCdiSpecModel.deviceId(claimUid, "channel-0"));
    } finally {
      channel.shutdownNow();
    }

    SIM.client().pods().inNamespace(ns).withName("mnnvl").delete();
    await().atMost(WAIT).until(() -> label(GB) == null);
    await().atMost(WAIT).until(() -> !Files.exists(spec));
  }

  static List<String> devices(String node) {
    List<String> out = new ArrayList<>();
    for (GenericKubernetesResource s :
        SIM.client()
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
            .withField("spec.nodeName", node)
            .withField("spec.driver", DRIVER)
            .list()
            .getItems()) {
      Serialization.jsonMapper()
          .valueToTree(s)
          .path("spec")
          .path("devices")
          .forEach(d -> out.add(d.path("name").asText()));
    }
    return out;
  }

  /** The operator namespace's pods and their state, for messages. */
  static String pods() {
    String ns = SIM.sim().namespace();
    String daemonSets =
        SIM.client().apps().daemonSets().inNamespace(ns).list().getItems().stream()
            .map(d -> d.getMetadata().getName() + " " + d.getStatus())
            .toList()
            .toString();
    String events =
        SIM.client().v1().events().inNamespace(ns).list().getItems().stream()
            .map(
                e -> e.getInvolvedObject().getName() + ": " + e.getReason() + ": " + e.getMessage())
            .toList()
            .toString();
    return "daemon sets "
        + daemonSets
        + "; events "
        + events
        + "; node labels "
        + SIM.client().nodes().withName(GB).get().getMetadata().getLabels()
        + "; pods "
        + SIM.client().pods().inNamespace(ns).list().getItems().stream()
            .map(
                p ->
                    p.getMetadata().getName()
                        + "@"
                        + p.getSpec().getNodeName()
                        + "="
                        + (p.getStatus() == null ? "?" : p.getStatus().getPhase())
                        + (p.getStatus() == null || p.getStatus().getInitContainerStatuses() == null
                            ? ""
                            : " init "
                                + p.getStatus().getInitContainerStatuses().stream()
                                    .map(c -> c.getName() + ":" + c.getState())
                                    .toList())
                        + (p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                            ? ""
                            : " " + p.getStatus().getContainerStatuses()))
            .toList()
            .toString();
  }

  static String label(String node) {
    Map<String, String> labels =
        SIM.client().nodes().withName(node).get().getMetadata().getLabels();
    return labels == null ? null : labels.get(LABEL);
  }

  static JsonNode claimOf(String ns, Pod pod) {
    String name = pod.getStatus().getResourceClaimStatuses().get(0).getResourceClaimName();
    return Serialization.jsonMapper()
        .valueToTree(
            SIM.client()
                .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
                .inNamespace(ns)
                .withName(name)
                .get());
  }
}
