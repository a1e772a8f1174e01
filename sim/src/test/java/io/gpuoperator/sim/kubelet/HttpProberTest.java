package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The kubelet's HTTP probes against a real local server, through a published container port. */
class HttpProberTest {
  private HttpServer server;
  private final AtomicInteger readyz = new AtomicInteger(503);
  private final AtomicInteger healthz = new AtomicInteger(200);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/readyz", ex -> answer(ex, readyz.get()));
    server.createContext("/healthz", ex -> answer(ex, healthz.get()));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void answer(com.sun.net.httpserver.HttpExchange ex, int code)
      throws java.io.IOException {
    ex.sendResponseHeaders(code, -1);
    ex.close();
  }

  /** The chart's operator container: startup and liveness on /healthz, readiness on /readyz. */
  private static Container operatorLike() {
    return new ContainerBuilder()
        .withName("gpu-operator")
        .addNewPort()
        .withName("health")
        .withContainerPort(8081)
        .endPort()
        .withNewStartupProbe()
        .withNewHttpGet()
        .withPath("/healthz")
        .withNewPort("health")
        .endHttpGet()
        .withPeriodSeconds(1)
        .withFailureThreshold(30)
        .endStartupProbe()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/readyz")
        .withNewPort("health")
        .endHttpGet()
        .withPeriodSeconds(1)
        .withFailureThreshold(2)
        .endReadinessProbe()
        .withNewLivenessProbe()
        .withNewHttpGet()
        .withPath("/healthz")
        .withNewPort(8081)
        .endHttpGet()
        .withPeriodSeconds(1)
        .withFailureThreshold(2)
        .endLivenessProbe()
        .build();
  }

  @Test
  void probesDecideReadinessOnceThePortIsPublishedAndLivenessKills() throws Exception {
    ContainerProcess p = new ContainerProcess();
    HttpProber.watch("ns/pod", operatorLike(), p);
    Thread.sleep(1500);
    assertThat(p.isReady()).as("nothing published, nothing probed").isFalse();

    p.publishPort(8081, server.getAddress().getPort());
    Thread.sleep(1500);
    assertThat(p.isReady()).as("/readyz answers 503").isFalse();
    readyz.set(200);
    await().atMost(Duration.ofSeconds(5)).until(p::isReady);
    readyz.set(503);
    await().atMost(Duration.ofSeconds(5)).until(() -> !p.isReady());
    assertThat(p.hasExited()).isFalse();
    readyz.set(200);
    await().atMost(Duration.ofSeconds(5)).until(p::isReady);

    healthz.set(500);
    await().atMost(Duration.ofSeconds(6)).until(p::hasExited);
    assertThat(p.exitCode()).isEqualTo(KubeletConstants.EXIT_KILLED);
  }

  @Test
  void aContainerThatPublishesNothingKeepsItsDeclaredReadiness() throws Exception {
    ContainerProcess p = new ContainerProcess();
    HttpProber.watch("ns/pod", operatorLike(), p);
    p.markReady();
    Thread.sleep(1500);
    assertThat(p.isReady()).isTrue();
    p.stop();
  }

  @Test
  void portPublishedBeforeWatchingIsProbedToo() {
    ContainerProcess p = new ContainerProcess();
    readyz.set(200);
    p.publishPort(8081, server.getAddress().getPort());
    HttpProber.watch("ns/pod", operatorLike(), p);
    await().atMost(Duration.ofSeconds(5)).until(p::isReady);
    p.stop();
  }
}
