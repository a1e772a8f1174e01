package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * Feature discovery against a real API server: a simulated 8x H100 node in mixed MIG mode gets its
 * labels; stopping and restarting the agent never removes them; switching the hardware profile
 * changes only what differs, in one patch; an idle agent writes nothing.
 */
@ExtendWith(ControlPlaneExtension.class)
class FeatureDiscoveryIT {
  static final String USER_AGENT = "gfd-it-agent";
  static final Duration INTERVAL = Duration.ofMillis(300);

  /** An agent labelling a Node directly, on its own thread. */
  static final class Running implements AutoCloseable {
    final FeatureDiscoveryAgent agent;
    final Thread thread;

    Running(KubernetesClient client, String node, String profile) {
      this(client, node, new SimulatedBackend(HardwareProfiles.builtInNode(profile), node));
    }

    Running(KubernetesClient client, String node, SimulatedBackend gpus) {
      agent =
          new FeatureDiscoveryAgent(
              gpus,
              new NodeLabelSink(client, node),
              "mixed",
              DevicePluginConfigs::empty,
              true,
              () -> gpus.profile().machineType(),
              Clock.systemUTC());
      thread =
          new Thread(
              () -> {
                try {
                  agent.run(INTERVAL);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "gfd-" + node);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      agent.stop();
      thread.join(10_000);
      assertThat(thread.isAlive()).isFalse();
    }
  }

  static KubernetesClient agentClient(ControlPlane cp) throws Exception {
    Config config = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
    config.setUserAgent(USER_AGENT);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  static Node createNode(KubernetesClient admin, String name) {
    return admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("team", "ml")
                .addToLabels("nvidia.com/gpu.deploy.driver", "true")
                .endMetadata()
                .build())
        .create();
  }

  static Map<String, String> labels(KubernetesClient admin, String node) {
    return admin.nodes().withName(node).get().getMetadata().getLabels();
  }

  static long agentPatches(ControlPlane cp, String node) throws Exception {
    ObjectMapper json = new ObjectMapper();
    long n = 0;
    for (String line : Files.readAllLines(cp.auditLog())) {
      JsonNode e = json.readTree(line);
      if (USER_AGENT.equals(e.path("userAgent").asText())
          && e.path("verb").asText().equals("patch")
          && e.path("objectRef").path("resource").asText().equals("nodes")
          && e.path("objectRef").path("name").asText().equals(node)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void labelsAppearSurviveRestartsAndFollowProfileChanges(ControlPlane cp) throws Exception {
    KubernetesClient admin = cp.client();
    String node = "gfd-h100-mixed";
    createNode(admin, node);
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    try (KubernetesClient client = agentClient(cp);
        Watch watch = admin.nodes().withName(node).watch(recorder(seen))) {
      try (Running first = new Running(client, node, "dgx-h100-mig-mixed")) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> "16".equals(labels(admin, node).get("nvidia.com/mig-1g.10gb.count")));
        Map<String, String> l = labels(admin, node);
        assertThat(l)
            .containsEntry("nvidia.com/mig.strategy", "mixed")
            .containsEntry("nvidia.com/mig-2g.20gb.count", "8")
            .containsEntry("nvidia.com/mig-3g.40gb.count", "8")
            .containsEntry("nvidia.com/mig-1g.10gb.product", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb")
            .containsEntry("nvidia.com/gpu.count", "8")
            .containsEntry("nvidia.com/gpu.family", "hopper")
            .containsEntry("nvidia.com/gpu.memory", "81559")
            .containsEntry("nvidia.com/gpu.machine", "DGXH100")
            .doesNotContainKey("nvidia.com/gpu.present")
            .doesNotContainKey("nvidia.com/gpu.clique")
            .containsEntry("team", "ml")
            .containsEntry("nvidia.com/gpu.deploy.driver", "true");
        // Idle: further passes find nothing to change and write nothing.
        long afterFirst = agentPatches(cp, node);
        Thread.sleep(INTERVAL.toMillis() * 4);
        assertThat(agentPatches(cp, node)).isEqualTo(afterFirst).isEqualTo(1);
      }
      Map<String, String> before = labels(admin, node);
      // Stopped: everything stays.
      Thread.sleep(INTERVAL.toMillis() * 2);
      assertThat(labels(admin, node)).isEqualTo(before);
      try (Running again = new Running(client, node, "dgx-h100-mig-mixed")) {
        Thread.sleep(INTERVAL.toMillis() * 4);
      }
      assertThat(labels(admin, node)).isEqualTo(before);
      assertThat(agentPatches(cp, node)).isEqualTo(1);
      // No observed state of the Node lacked a discovery label since they first appeared.
      List<Map<String, String>> afterLabelled =
          seen.stream().dropWhile(m -> !m.containsKey("nvidia.com/mig-1g.10gb.count")).toList();
      assertThat(afterLabelled).isNotEmpty();
      assertThat(afterLabelled).allSatisfy(m -> assertThat(m).containsAllEntriesOf(before));

      // Another MIG layout: only the differing labels change, in one patch.
      try (Running switched = new Running(client, node, "dgx-h100-mig-single")) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> "56".equals(labels(admin, node).get("nvidia.com/mig-1g.10gb.count")));
        Thread.sleep(INTERVAL.toMillis() * 3);
      }
      Map<String, String> after = labels(admin, node);
      assertThat(after.keySet()).noneMatch(k -> k.startsWith("nvidia.com/mig-2g.20gb."));
      assertThat(after.keySet()).noneMatch(k -> k.startsWith("nvidia.com/mig-3g.40gb."));
      assertThat(after)
          .containsEntry("team", "ml")
          .containsEntry("nvidia.com/gpu.deploy.driver", "true")
          .containsEntry("nvidia.com/gpu.family", "hopper");
      assertThat(agentPatches(cp, node)).isEqualTo(2);
    }
  }

  /** A GB200 tray's GPUs are in the simulated rack's NVLink clique: GFD's clique label. */
  @Test
  void aGb200NodeIsLabelledWithItsClique(ControlPlane cp) throws Exception {
    KubernetesClient admin = cp.client();
    String node = "gfd-gb200";
    createNode(admin, node);
    SimulatedBackend gpus =
        new SimulatedBackend(
            HardwareProfiles.parseNode(
                "driverVersion: 570.124.06\ncudaVersion: \"12.8\"\n"
                    + "gpus: [{model: GB200-186GB, count: 4}]\n",
                node),
            node);
    try (KubernetesClient client = agentClient(cp);
        Running gfd = new Running(client, node, gpus)) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(labels(admin, node))
                      .containsEntry("nvidia.com/gpu.count", "4")
                      .containsEntry(
                          "nvidia.com/gpu.clique", "5c8a1d3e-0000-4000-8000-000000000001.1"));
    }
  }

  @Test
  void autoOutputPublishesANodeFeatureWhenNfdIsInstalled(ControlPlane cp) throws Exception {
    KubernetesClient admin = cp.client();
    admin
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(
            admin
                .getKubernetesSerialization()
                .unmarshal(
                    getClass().getResourceAsStream("/nfd/nodefeature-crd.yaml"),
                    io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
                        .class))
        .serverSideApply();
    await().atMost(Duration.ofSeconds(30)).until(() -> NodeFeatureSink.available(admin));
    String ns = ControlPlaneExtension.newNamespace(admin, "gfd");
    FeatureDiscoveryCommand cmd = new FeatureDiscoveryCommand();
    cmd.withEnv(Map.of("POD_NAMESPACE", ns, "NODE_NAME", "gfd-h200"));
    CommandLine cl = new CommandLine(cmd);
    StringWriter out = new StringWriter();
    cl.setErr(new PrintWriter(out));
    int rc =
        cl.execute(
            "--backend=simulated",
            "--node-profile=hgx-h200",
            "--oneshot",
            "--kubeconfig=" + cp.kubeconfig());
    assertThat(rc).as(out.toString()).isZero();
    GenericKubernetesResource nf =
        admin
            .genericKubernetesResources(NodeFeatureSink.API_VERSION, NodeFeatureSink.KIND)
            .inNamespace(ns)
            .withName("nvidia-features-for-gfd-h200")
            .get();
    assertThat(nf).isNotNull();
    assertThat(nf.getMetadata().getLabels())
        .containsEntry(NodeFeatureSink.NODE_NAME_LABEL, "gfd-h200");
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) nf.getAdditionalProperties().get("spec");
    assertThat(spec.get("labels"))
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-H200")
        .containsEntry("nvidia.com/gpu.count", "8")
        .containsEntry("nvidia.com/gpu.memory", "143771")
        .containsKey("nvidia.com/gfd.timestamp");
  }

  private static Watcher<Node> recorder(List<Map<String, String>> seen) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, Node node) {
        Map<String, String> l = node.getMetadata().getLabels();
        seen.add(l == null ? Map.of() : Map.copyOf(l));
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
  }
}
