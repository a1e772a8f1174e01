package io.gpuoperator.cli.simulate;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.operator.operand.Manifests;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * DRA scheduling on a simulated cluster of 20 nodes × 8 H100 (160 GPUs), each running our {@code
 * dra-plugin} in a pod, with the real kube-scheduler: (1) from a node's first ResourceSlice to the
 * allocation of a claim that was waiting for it, 5 times; (2) 100 pods with one GPU claim each,
 * created at once: claims allocated per second and time until every pod runs (prepared by the
 * simulated kubelets through the plugins). Not a test: prints lines for BENCHMARKS.md. Run with
 * {@code scripts/bench-dra.sh}.
 */
class DraSchedulingBenchmark {
  static final int NODES = 20;
  static final int PODS = 100;

  @Test
  void scheduling() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("benchmark"), "run with -Dbenchmark=true");
    List<String> names = new ArrayList<>();
    List<NodeDescription> nodes = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      names.add("h100-" + i);
      nodes.add(NodeDescription.gpuNode("h100-" + i, "H100-SXM5-80GB", 8));
    }
    try (ClusterOnNodes c =
        ClusterOnNodes.start(
            ControlPlane.builder().controllerManager(true).scheduler(true),
            nodes,
            new KubeletOptions(
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(2)))) {
      ControlPlane cp = c.cp();
      SimulatedCluster cluster = c.cluster();
      KubernetesClient admin = cp.client();
      String ns = ControlPlaneExtension.newNamespace(admin, "bench");
      // NVIDIA's device classes from the operator's dra-driver manifests (v1, as this server).
      for (HasMetadata o : Manifests.load(OperandNames.DRA_DRIVER)) {
        if (o.getKind().equals("DeviceClass")) {
          admin.resource(o).create();
        }
      }
      admin
          .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaimTemplate")
          .inNamespace(ns)
          .resource(
              Serialization.unmarshal(
                  "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: gpu}\n"
                      + "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName:"
                      + " gpu.nvidia.com}}]}}}\n",
                  GenericKubernetesResource.class))
          .create();

      Map<String, Long> sliceSeen = new ConcurrentHashMap<>();
      Map<String, Long> claimAllocated = new ConcurrentHashMap<>();
      var sliceWatch =
          admin
              .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
              .watch(
                  watcher(
                      r -> {
                        String node = json(r).path("spec").path("nodeName").asText();
                        sliceSeen.putIfAbsent(node, System.nanoTime());
                      }));
      var claimWatch =
          admin
              .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
              .inNamespace(ns)
              .watch(
                  watcher(
                      r -> {
                        if (!json(r).path("status").path("allocation").isMissingNode()) {
                          claimAllocated.putIfAbsent(r.getMetadata().getName(), System.nanoTime());
                        }
                      }));
      try {
        // (1) A pod waits for node i's GPUs; its plugin starts; slice seen → claim allocated.
        List<Double> reaction = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          String node = names.get(i);
          pod(admin, ns, "wait-" + i, node);
          Thread.sleep(2000); // the scheduler has tried and parked the pod
          plugin(admin, ns, node);
          await().atMost(Duration.ofSeconds(120)).until(() -> sliceSeen.containsKey(node));
          String claimName = awaitClaim(admin, ns, "wait-" + i);
          await()
              .atMost(Duration.ofSeconds(120))
              .until(() -> claimAllocated.containsKey(claimName));
          reaction.add((claimAllocated.get(claimName) - sliceSeen.get(node)) / 1e6);
        }
        System.out.printf(
            Locale.ROOT, "BENCH slice published -> first allocation (ms, 5 nodes): %s%n", reaction);

        // (2) The other plugins; then 100 one-GPU pods at once.
        for (int i = 5; i < NODES; i++) {
          plugin(admin, ns, names.get(i));
        }
        await()
            .atMost(Duration.ofMinutes(3))
            .until(
                () ->
                    names.stream()
                        .allMatch(
                            n -> cluster.dra(n).manager().drivers().contains("gpu.nvidia.com")));
        await().atMost(Duration.ofMinutes(3)).until(() -> sliceSeen.size() == NODES);
        ExecutorService creators = Executors.newFixedThreadPool(8);
        long t0 = System.nanoTime();
        for (int i = 0; i < PODS; i++) {
          int n = i;
          creators.submit(() -> pod(admin, ns, "work-" + n, null));
        }
        creators.shutdown();
        creators.awaitTermination(5, TimeUnit.MINUTES);
        long created = System.nanoTime();
        await()
            .atMost(Duration.ofMinutes(10))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    claimAllocated.keySet().stream().filter(k -> k.startsWith("work-")).count()
                        == PODS);
        long allocated =
            claimAllocated.entrySet().stream()
                .filter(e -> e.getKey().startsWith("work-"))
                .mapToLong(Map.Entry::getValue)
                .max()
                .orElseThrow();
        await()
            .atMost(Duration.ofMinutes(10))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () ->
                    admin.pods().inNamespace(ns).list().getItems().stream()
                            .filter(p -> p.getMetadata().getName().startsWith("work-"))
                            .filter(p -> "Running".equals(p.getStatus().getPhase()))
                            .count()
                        == PODS);
        long running = System.nanoTime();
        List<Long> perClaim = new ArrayList<>();
        claimAllocated.forEach(
            (k, v) -> {
              if (k.startsWith("work-")) {
                perClaim.add((v - t0) / 1_000_000);
              }
            });
        Collections.sort(perClaim);
        System.out.printf(
            Locale.ROOT,
            "BENCH %d pods created in %.1f s; all %d claims allocated %.1f s after the first create"
                + " (%.1f claims/s); all pods Running after %.1f s; per claim create->allocated"
                + " p50 %d ms, p90 %d ms, max %d ms%n",
            PODS,
            (created - t0) / 1e9,
            PODS,
            (allocated - t0) / 1e9,
            PODS / ((allocated - t0) / 1e9),
            (running - t0) / 1e9,
            perClaim.get(perClaim.size() / 2),
            perClaim.get((int) (perClaim.size() * 0.9)),
            perClaim.get(perClaim.size() - 1));
      } finally {
        sliceWatch.close();
        claimWatch.close();
      }
    }
  }

  static Watcher<GenericKubernetesResource> watcher(
      java.util.function.Consumer<GenericKubernetesResource> onEvent) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource r) {
        if (action == Action.ADDED || action == Action.MODIFIED) {
          onEvent.accept(r);
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }

  static void plugin(KubernetesClient admin, String ns, String node) {
    admin
        .pods()
        .inNamespace(ns)
        .resource(
            Serialization.unmarshal(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: dra-plugin-"
                    + node
                    + "}\nspec:\n  nodeName: "
                    + node
                    + "\n  containers:\n  - {name: plugin, image: "
                    + OperandImages.projectImage()
                    + ", args: [dra-plugin]}\n",
                Pod.class))
        .create();
  }

  static void pod(KubernetesClient admin, String ns, String name, String node) {
    String selector =
        node == null ? "" : "  nodeSelector: {kubernetes.io/hostname: " + node + "}\n";
    admin
        .pods()
        .inNamespace(ns)
        .resource(
            Serialization.unmarshal(
                "apiVersion: v1\nkind: Pod\nmetadata: {name: "
                    + name
                    + "}\nspec:\n"
                    + selector
                    + "  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]\n"
                    + "  containers:\n  - name: work\n    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                    + "    command: [sleep, infinity]\n    resources: {claims: [{name: gpu}]}\n",
                Pod.class))
        .create();
  }

  static String awaitClaim(KubernetesClient admin, String ns, String pod) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName(pod).get();
              return p.getStatus() != null
                  && p.getStatus().getResourceClaimStatuses() != null
                  && !p.getStatus().getResourceClaimStatuses().isEmpty();
            });
    return admin
        .pods()
        .inNamespace(ns)
        .withName(pod)
        .get()
        .getStatus()
        .getResourceClaimStatuses()
        .get(0)
        .getResourceClaimName();
  }

  static com.fasterxml.jackson.databind.JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }
}
