package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.gpuoperator.api.NodeWatch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Watches#node}: the validator's wait for its Node through a {@link NodeWatch} (in the
 * simulator the one shared watch of every Node) completes with the Node as it is, or on the change
 * that meets the condition, or empty at the timeout, and closes its watch however it ends.
 */
class NodeWaitTest {
  final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  /** Nodes by name, and who watches them: what the simulator's NodeCache does, in memory. */
  static final class Nodes implements NodeWatch {
    final Map<String, Node> now = new ConcurrentHashMap<>();
    final List<Consumer<Node>> watching = new CopyOnWriteArrayList<>();

    @Override
    public Node current(String nodeName) {
      return now.get(nodeName);
    }

    @Override
    public AutoCloseable watch(String nodeName, Consumer<Node> onNode) {
      Consumer<Node> w = n -> onNode.accept(n);
      watching.add(w);
      Node n = now.get(nodeName);
      if (n != null) {
        w.accept(n);
      }
      return () -> watching.remove(w);
    }

    void change(Node n) {
      now.put(n.getMetadata().getName(), n);
      watching.forEach(w -> w.accept(n));
    }
  }

  static Node node(String gpus) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata();
    return gpus == null
        ? b.build()
        : b.withNewStatus()
            .addToCapacity("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity(gpus))
            .endStatus()
            .build();
  }

  static boolean advertises(Node n) {
    return n.getStatus() != null && n.getStatus().getCapacity().containsKey("nvidia.com/gpu");
  }

  CompletableFuture<Optional<Watches.Holder<Node>>> waitFor(Nodes nodes, Duration timeout) {
    return Watches.node(new Waits(scheduler), nodes, "gpu-1", NodeWaitTest::advertises, timeout);
  }

  @Test
  void aNodeThatDoesNotExistEndsTheWaitAtOnceWithNone() throws Exception {
    Nodes nodes = new Nodes();
    assertThat(waitFor(nodes, Duration.ofMinutes(1)).get(5, TimeUnit.SECONDS))
        .hasValueSatisfying(h -> assertThat(h.value()).isNull());
    assertThat(nodes.watching).isEmpty();
  }

  @Test
  void theChangeThatMeetsTheConditionEndsTheWaitAndItsWatch() throws Exception {
    Nodes nodes = new Nodes();
    nodes.change(node(null));
    var met = waitFor(nodes, Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.watching.size() == 1);
    assertThat(met).isNotDone();
    nodes.change(node("8"));
    assertThat(met.get(5, TimeUnit.SECONDS))
        .hasValueSatisfying(h -> assertThat(advertises(h.value())).isTrue());
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.watching.isEmpty());
  }

  @Test
  void noChangeEndsTheWaitEmptyAtTheTimeoutAndClosesTheWatch() throws Exception {
    Nodes nodes = new Nodes();
    nodes.change(node(null));
    assertThat(waitFor(nodes, Duration.ofMillis(200)).get(5, TimeUnit.SECONDS)).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.watching.isEmpty());
  }

  @Test
  void cancellingTheRunClosesTheWatch() throws Exception {
    Nodes nodes = new Nodes();
    nodes.change(node(null));
    Waits waits = new Waits(scheduler);
    CompletableFuture<String> run =
        waits.outcome(
            Watches.node(waits, nodes, "gpu-1", NodeWaitTest::advertises, Duration.ofMinutes(1))
                .thenApply(met -> "met"));
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.watching.size() == 1);
    run.cancel(true);
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.watching.isEmpty());
  }
}
