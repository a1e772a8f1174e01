package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.kubelet.dra.v1.Claim;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.pluginregistration.v1.InfoRequest;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRA plugin against a real API server (v1.36): its slices pass the server's validation
 * (counter sets, device limits, attribute types), claims are read back from the server, and the
 * kubelet's gRPC calls (v1 and v1beta1) prepare and unprepare them, across a plugin restart.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraPluginIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NODE = "dra-it-node";

  @TempDir Path dir;
  private final SimulatedBackend backend =
      DeviceInventoryModelTest.backend(
          "gpus: [{model: H100-SXM5-80GB, count: 8, mig: {enabled: true}},"
              + " {model: H100-SXM5-80GB, count: 1}]\n");
  private DraPluginAgent agent;

  @AfterEach
  void close() {
    if (agent != null) {
      agent.close();
    }
    backend.close();
  }

  private DraPluginAgent start(KubernetesClient client) throws Exception {
    return DraTestAgents.start(backend, client, NODE, dir);
  }

  private static List<GenericKubernetesResource> slices(KubernetesClient client) {
    return client
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
        .withField("spec.nodeName", NODE)
        .list()
        .getItems();
  }

  private static JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }

  @Test
  void publishesPreparesAndSurvivesARestart(KubernetesClient client) throws Exception {
    agent = start(client);
    await().atMost(WAIT).until(agent::ready);
    // 8 partitionable GPUs (8 counter sets, 200 placements) and one whole GPU: the server kept
    // the counters, so it validated and accepted them.
    List<GenericKubernetesResource> slices = slices(client);
    long counterSets =
        slices.stream().mapToLong(s -> json(s).path("spec").path("sharedCounters").size()).sum();
    long devices =
        slices.stream().mapToLong(s -> json(s).path("spec").path("devices").size()).sum();
    assertThat(counterSets).isEqualTo(8);
    assertThat(devices).isEqualTo(8 * 25 + 1);
    assertThat(slices)
        .allSatisfy(
            s ->
                assertThat(json(s).path("spec").path("pool").path("resourceSliceCount").asLong())
                    .isEqualTo(slices.size()));
    long generation = json(slices.get(0)).path("spec").path("pool").path("generation").asLong();

    String ns = ControlPlaneExtension.newNamespace(client, "dra-plugin");
    String uid = allocatedClaim(client, ns, "mig-claim", "gpu-0-mig-3g40gb-9-4");
    Path registration = dir.resolve("plugins_registry/gpu.nvidia.com-reg.sock");
    ManagedChannel reg = UnixSockets.channel(registration);
    ManagedChannel channel = UnixSockets.channel(DraTestAgents.socket(dir));
    try {
      var info =
          RegistrationGrpc.newBlockingStub(reg)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .getInfo(InfoRequest.getDefaultInstance());
      assertThat(info.getType()).isEqualTo("DRAPlugin");
      assertThat(info.getName()).isEqualTo("gpu.nvidia.com");
      assertThat(info.getSupportedVersionsList())
          .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");

      Claim claim = Claim.newBuilder().setNamespace(ns).setName("mig-claim").setUid(uid).build();
      NodePrepareResourcesResponse answer = prepare(channel, claim);
      var result = answer.getClaimsOrThrow(uid);
      assertThat(result.getError()).isEmpty();
      assertThat(result.getDevices(0).getDeviceName()).isEqualTo("gpu-0-mig-3g40gb-9-4");
      assertThat(result.getDevices(0).getPoolName()).isEqualTo(NODE);
      assertThat(result.getDevices(0).getRequestNamesList()).containsExactly("mig");
      assertThat(result.getDevices(0).getCdiDeviceIdsList())
          .containsExactly("k8s.gpu.nvidia.com/claim=" + uid + "-gpu-0-mig-3g40gb-9-4");
      assertThat(backend.migDevices(0)).hasSize(1);

      // The same claim through v1beta1 (an older kubelet), then across a plugin restart.
      var beta =
          io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .nodePrepareResources(
                  NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
      assertThat(beta.getClaimsOrThrow(uid).getDevices(0).getCdiDeviceIdsList())
          .isEqualTo(result.getDevices(0).getCdiDeviceIdsList());
    } finally {
      channel.shutdownNow();
      reg.shutdownNow();
    }
    agent.close();
    agent = start(client);
    await().atMost(WAIT).until(agent::ready);
    channel = UnixSockets.channel(DraTestAgents.socket(dir));
    try {
      Claim claim = Claim.newBuilder().setNamespace(ns).setName("mig-claim").setUid(uid).build();
      assertThat(prepare(channel, claim).getClaimsOrThrow(uid).getDevices(0).getDeviceName())
          .isEqualTo("gpu-0-mig-3g40gb-9-4");
      assertThat(backend.migDevices(0)).hasSize(1); // not prepared twice
      // The restart published again with a newer pool generation.
      assertThat(json(slices(client).get(0)).path("spec").path("pool").path("generation").asLong())
          .isGreaterThan(generation);

      // A claim with a bad opaque parameter: the error names the claim, entry and field.
      String bad =
          allocatedClaimWithConfig(
              client,
              ns,
              "bad-claim",
              "gpu-8",
              Map.of(
                  "apiVersion", "resource.nvidia.com/v1beta1",
                  "kind", "GpuConfig",
                  "sharing",
                      Map.of(
                          "strategy",
                          "TimeSlicing",
                          "timeSlicingConfig",
                          Map.of("interval", "Forever"))));
      Claim badClaim = Claim.newBuilder().setNamespace(ns).setName("bad-claim").setUid(bad).build();
      assertThat(prepare(channel, badClaim).getClaimsOrThrow(bad).getError())
          .isEqualTo(
              "ResourceClaim "
                  + ns
                  + "/bad-claim: spec.devices.config[0]: opaque parameters:"
                  + " sharing.timeSlicingConfig.interval: expected Default, Short, Medium or Long,"
                  + " got \"Forever\"");

      var unprepared =
          DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .nodeUnprepareResources(
                  NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
      assertThat(unprepared.getClaimsOrThrow(uid).getError()).isEmpty();
      assertThat(backend.migDevices(0)).isEmpty();
      assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json")).doesNotExist();
    } finally {
      channel.shutdownNow();
    }

    // An XID on the whole GPU withdraws it from the pool at a new generation.
    long before = agent.publisher().generation();
    backend.injectXid(8, 79);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        slices(client).stream()
                            .flatMap(s -> toList(json(s).path("spec").path("devices")).stream())
                            .map(d -> d.path("name").asText()))
                    .doesNotContain("gpu-8")
                    .hasSize(8 * 25));
    assertThat(agent.publisher().generation()).isGreaterThan(before);

    // An administrator (or the MIG manager) makes a 7g.80gb on GPU 7: at the next rescan GPU 7 is
    // published as that MIG device, its 25 placements and its counter set are gone.
    long beforeLayout = agent.publisher().generation();
    var full =
        backend.gpuInstanceProfiles(7).stream()
            .filter(p -> p.name().equals("7g.80gb"))
            .findFirst()
            .orElseThrow();
    var gi = backend.createGpuInstance(7, full.id());
    backend.createComputeInstance(
        7,
        gi.id(),
        backend.computeInstanceProfiles(7, gi.id()).stream()
            .max(java.util.Comparator.comparingInt(p -> p.sliceCount()))
            .orElseThrow()
            .id());
    agent.rescan();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              List<GenericKubernetesResource> now = slices(client);
              assertThat(
                      now.stream()
                          .flatMap(s -> toList(json(s).path("spec").path("devices")).stream())
                          .map(d -> d.path("name").asText())
                          .filter(n -> n.startsWith("gpu-7-")))
                  .containsExactly("gpu-7-mig-7g80gb-" + full.id() + "-0");
              assertThat(
                      now.stream()
                          .mapToLong(s -> json(s).path("spec").path("sharedCounters").size())
                          .sum())
                  .isEqualTo(7);
            });
    assertThat(agent.publisher().generation()).isGreaterThan(beforeLayout);
  }

  private static NodePrepareResourcesResponse prepare(ManagedChannel channel, Claim claim) {
    return DRAPluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
  }

  private static List<JsonNode> toList(JsonNode array) {
    List<JsonNode> out = new java.util.ArrayList<>();
    array.forEach(out::add);
    return out;
  }

  private static String allocatedClaim(
      KubernetesClient client, String ns, String name, String device) {
    return allocatedClaimWithConfig(client, ns, name, device, null);
  }

  /** A claim as the scheduler leaves it: created by a user, allocated in its status. */
  private static String allocatedClaimWithConfig(
      KubernetesClient client, String ns, String name, String device, Map<String, Object> params) {
    String request = device.contains("mig") ? "mig" : "gpu";
    String cls = device.contains("mig") ? "mig.nvidia.com" : "gpu.nvidia.com";
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: ")
        .append(name)
        .append(", namespace: ")
        .append(ns)
        .append("}\nspec:\n  devices:\n    requests:\n    - name: ")
        .append(request)
        .append("\n      exactly: {deviceClassName: ")
        .append(cls)
        .append("}\n");
    if (params != null) {
      y.append("    config:\n    - opaque:\n        driver: gpu.nvidia.com\n        parameters: ")
          .append(Serialization.asJson(params))
          .append('\n');
    }
    var api = client.genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim");
    GenericKubernetesResource created =
        api.inNamespace(ns)
            .resource(Serialization.unmarshal(y.toString(), GenericKubernetesResource.class))
            .create();
    StringBuilder status = new StringBuilder();
    status
        .append("{\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"")
        .append(request)
        .append("\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"")
        .append(NODE)
        .append("\",\"device\":\"")
        .append(device)
        .append("\"}]");
    if (params != null) {
      status
          .append(
              ",\"config\":[{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.nvidia.com\",")
          .append("\"parameters\":")
          .append(Serialization.asJson(params))
          .append("}}]");
    }
    status.append("}}}}");
    api.inNamespace(ns)
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), status.toString());
    return created.getMetadata().getUid();
  }
}
