package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The simulator's list-and-watch cache against a real API server. */
@ExtendWith(ControlPlaneExtension.class)
class StreamingInformerIT {
  private final KubernetesClient client;

  StreamingInformerIT(KubernetesClient client) {
    this.client = client;
  }

  /** Records events as "add name value", "update name value", "delete name". */
  private static final class Recorder implements ResourceEventHandler<ConfigMap> {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void onAdd(ConfigMap cm) {
      events.add("add " + cm.getMetadata().getName() + " " + cm.getData().get("v"));
    }

    @Override
    public void onUpdate(ConfigMap old, ConfigMap cm) {
      events.add("update " + cm.getMetadata().getName() + " " + cm.getData().get("v"));
    }

    @Override
    public void onDelete(ConfigMap cm, boolean unknown) {
      events.add("delete " + cm.getMetadata().getName());
    }
  }

  private static ConfigMap configMap(String ns, String name, String value) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withData(Map.of("v", value))
        .build();
  }

  @Test
  void listsInPagesThenHearsEveryChangeInItsNamespaceOnlyAcrossWatchRestarts() throws Exception {
    String ns = "streaming-informer-a";
    String other = "streaming-informer-b";
    for (String n : List.of(ns, other)) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(n).endMetadata().build())
          .serverSideApply();
    }
    // More than a page (500) before the start: the first list needs a continue token.
    for (int i = 0; i < 520; i++) {
      client.configMaps().resource(configMap(ns, "before-" + i, "0")).create();
    }
    Recorder recorder = new Recorder();
    try (StreamingInformer<ConfigMap> informer =
        new StreamingInformer<>(client, ConfigMap.class, ns, null).withWatchSeconds(1, 2)) {
      informer.addEventHandler(recorder);
      informer.start().get(60, TimeUnit.SECONDS);
      assertThat(informer.list()).hasSizeGreaterThanOrEqualTo(520);
      assertThat(informer.get(ns + "/before-519").getData()).containsEntry("v", "0");

      // After at least one watch has ended (1-2 s each) and been resumed.
      Thread.sleep(3_000);
      client.configMaps().resource(configMap(ns, "later", "1")).create();
      client.configMaps().resource(configMap(other, "elsewhere", "1")).create();
      client
          .configMaps()
          .inNamespace(ns)
          .withName("later")
          .edit(
              cm -> {
                cm.getData().put("v", "2");
                return cm;
              });
      client.configMaps().inNamespace(ns).withName("before-0").delete();

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(recorder.events)
                      .contains("add later 1", "update later 2", "delete before-0"));
      assertThat(recorder.events).noneMatch(e -> e.contains("elsewhere"));
      assertThat(informer.get(ns + "/later").getData()).containsEntry("v", "2");
      assertThat(informer.get(ns + "/before-0")).isNull();
      // Each object was added once: resuming a watch replays nothing.
      assertThat(recorder.events.stream().filter(e -> e.startsWith("add before-1 ")).count())
          .isEqualTo(1);
    }
  }

  @Test
  void aFieldSelectorKeepsToItsObjects() throws Exception {
    for (String name : List.of("streaming-node-a", "streaming-node-b")) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
    List<String> seen = new CopyOnWriteArrayList<>();
    try (StreamingInformer<Node> informer =
        new StreamingInformer<>(client, Node.class, null, "metadata.name=streaming-node-a")) {
      informer.addEventHandler(
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node n) {
              seen.add("add " + n.getMetadata().getName());
            }

            @Override
            public void onUpdate(Node old, Node n) {
              seen.add("update " + n.getMetadata().getName() + " " + n.getMetadata().getLabels());
            }

            @Override
            public void onDelete(Node n, boolean unknown) {
              seen.add("delete " + n.getMetadata().getName());
            }
          });
      informer.start().get(60, TimeUnit.SECONDS);
      for (String name : List.of("streaming-node-b", "streaming-node-a")) {
        client
            .nodes()
            .withName(name)
            .edit(
                n -> {
                  n.getMetadata().setLabels(Map.of("x", "y"));
                  return n;
                });
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(seen).contains("update streaming-node-a {x=y}"));
      assertThat(seen).noneMatch(e -> e.contains("streaming-node-b"));
      assertThat(informer.get("streaming-node-a").getMetadata().getLabels())
          .containsEntry("x", "y");
    } finally {
      client.nodes().withName("streaming-node-a").delete();
      client.nodes().withName("streaming-node-b").delete();
    }
  }
}
