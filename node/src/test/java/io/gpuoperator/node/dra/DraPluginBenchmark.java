package io.gpuoperator.node.dra;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.kubelet.dra.v1.Claim;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Latency of NodePrepareResources and NodeUnprepareResources over the plugin's Unix socket, as the
 * kubelet calls them, on a real API server (prepare reads the claim from it): one whole GPU per
 * claim on an 8×H100 node, and one partitionable 1g.10gb per claim on an 8×H100 node in MIG mode
 * (prepare creates the MIG device, unprepare destroys it). Not a test: prints percentiles for
 * BENCHMARKS.md. Run with {@code scripts/bench-dra.sh}.
 */
class DraPluginBenchmark {
  private static final int WARMUP = 50;
  private static final int RUNS = 300;

  @TempDir Path dir;

  @Test
  void latencies() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("benchmark"), "run with -Dbenchmark=true");
    try (ControlPlane cp = ControlPlane.builder().start()) {
      KubernetesClient client = cp.client();
      client
          .namespaces()
          .resource(
              new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                  .withNewMetadata()
                  .withName("bench")
                  .endMetadata()
                  .build())
          .create();
      bench(client, "8 GPUs, whole GPU", "gpus: [{model: H100-SXM5-80GB, count: 8}]", "gpu-0", "a");
      bench(
          client,
          "8 GPUs in MIG mode, partitionable 1g.10gb",
          "gpus: [{model: H100-SXM5-80GB, count: 8, mig: {enabled: true}}]",
          "gpu-0-mig-1g10gb-19-0",
          "b");
    }
  }

  private void bench(KubernetesClient client, String label, String gpus, String device, String sub)
      throws Exception {
    String node = "bench-" + sub;
    try (SimulatedBackend backend = DeviceInventoryModelTest.backend(gpus + "\n")) {
      try (DraPluginAgent agent = DraTestAgents.start(backend, client, node, dir.resolve(sub))) {
        await().atMost(Duration.ofSeconds(60)).until(agent::ready);
        ManagedChannel ch = UnixSockets.channel(DraTestAgents.socket(dir.resolve(sub)));
        var stub = DRAPluginGrpc.newBlockingStub(ch);
        List<Long> prepare = new ArrayList<>();
        List<Long> unprepare = new ArrayList<>();
        try {
          for (int i = 0; i < WARMUP + RUNS; i++) {
            Claim claim = claim(client, node, sub + "-" + i, device);
            long t0 = System.nanoTime();
            var p =
                stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                    .nodePrepareResources(
                        NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
            long t1 = System.nanoTime();
            var u =
                stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                    .nodeUnprepareResources(
                        NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
            long t2 = System.nanoTime();
            String error = p.getClaimsOrThrow(claim.getUid()).getError();
            if (!error.isEmpty() || !u.getClaimsOrThrow(claim.getUid()).getError().isEmpty()) {
              throw new IllegalStateException("prepare failed: " + error);
            }
            if (i >= WARMUP) {
              prepare.add(t1 - t0);
              unprepare.add(t2 - t1);
            }
          }
        } finally {
          ch.shutdownNow();
        }
        print(label, "NodePrepareResources", prepare);
        print(label, "NodeUnprepareResources", unprepare);
      }
    }
  }

  private static Claim claim(KubernetesClient client, String node, String name, String device) {
    String cls = device.contains("mig") ? "mig.nvidia.com" : "gpu.nvidia.com";
    var api =
        client
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
            .inNamespace("bench");
    GenericKubernetesResource created =
        api.resource(
                Serialization.unmarshal(
                    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c-"
                        + name
                        + "}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: "
                        + cls
                        + "}}]}}\n",
                    GenericKubernetesResource.class))
            .create();
    api.withName("c-" + name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\","
                + "\"driver\":\"gpu.nvidia.com\",\"pool\":\""
                + node
                + "\",\"device\":\""
                + device
                + "\"}]}}}}");
    return Claim.newBuilder()
        .setNamespace("bench")
        .setName("c-" + name)
        .setUid(created.getMetadata().getUid())
        .build();
  }

  private static void print(String label, String call, List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "BENCH %s | %s | p50 %.3f ms | p99 %.3f ms | max %.1f ms | n=%d%n",
        label,
        call,
        sorted.get(sorted.size() / 2) / 1e6,
        sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) / 1e6,
        sorted.get(sorted.size() - 1) / 1e6,
        sorted.size());
  }
}
