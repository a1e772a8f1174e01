package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LeaseElection} against the real API server with the operator's default timings (lease 15
 * s, renew deadline 10 s, retry 2 s): the leader renews with one update per retry period and no
 * read, a second instance takes over once the leader stops, and a leader whose Lease someone else
 * took stops leading.
 */
@ExtendWith(ControlPlaneExtension.class)
class LeaseElectionIT {
  static final String LEASE = "lease-election-it";

  /** One candidate: its own client, whose Lease requests are counted by method. */
  static final class Candidate implements AutoCloseable {
    final Map<String, AtomicInteger> leaseRequests = new ConcurrentHashMap<>();
    final AtomicBoolean leading = new AtomicBoolean();
    final AtomicInteger stops = new AtomicInteger();
    final KubernetesClient client;
    final LeaseElection election;

    Candidate(ControlPlane cp, String ns, String identity) throws Exception {
      Config config = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
      Interceptor counter =
          new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
              if (request.uri().getPath().contains("/leases")) {
                leaseRequests
                    .computeIfAbsent(request.method(), m -> new AtomicInteger())
                    .incrementAndGet();
              }
            }
          };
      client =
          new KubernetesClientBuilder()
              .withConfig(config)
              .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", counter))
              .build();
      OperatorConfig operator = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", ns));
      election =
          new LeaseElection(
              client,
              operator,
              LEASE,
              identity,
              () -> leading.set(true),
              () -> {
                leading.set(false);
                stops.incrementAndGet();
              });
      election.start();
    }

    int requests(String method) {
      AtomicInteger n = leaseRequests.get(method);
      return n == null ? 0 : n.get();
    }

    @Override
    public void close() {
      election.close();
      client.close();
    }
  }

  @Test
  void leaderRenewsWithoutReadingTheLease(ControlPlane cp) throws Exception {
    String ns = namespace(cp, "lease-renew");
    try (Candidate a = new Candidate(cp, ns, "renew-a")) {
      await().atMost(Duration.ofSeconds(10)).untilTrue(a.leading);
      int gets = a.requests("GET");
      int puts = a.requests("PUT");
      Thread.sleep(10_000);
      int renewals = a.requests("PUT") - puts;
      // Every 2 s: about 5 in 10 s (fewer on a loaded machine), each one update and no read.
      assertThat(renewals).isBetween(3, 6);
      assertThat(a.requests("GET") - gets).as("reads while leading").isZero();
      assertThat(a.requests("PATCH")).isZero();
      Lease lease = cp.client().leases().inNamespace(ns).withName(LEASE).get();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("renew-a");
      assertThat(a.stops.get()).isZero();
    }
  }

  @Test
  void followerTakesOverAfterTheLeaderStops(ControlPlane cp) throws Exception {
    String ns = namespace(cp, "lease-takeover");
    try (Candidate a = new Candidate(cp, ns, "takeover-a")) {
      await().atMost(Duration.ofSeconds(10)).untilTrue(a.leading);
      try (Candidate b = new Candidate(cp, ns, "takeover-b")) {
        Thread.sleep(5_000);
        assertThat(b.leading).as("a follower while the leader renews").isFalse();
        assertThat(b.requests("PUT")).as("a follower writes nothing").isZero();
        long stopped = System.nanoTime();
        a.close();
        // The lease (15 s) runs out, then b's next attempt (every 2-4.4 s) takes it.
        await().atMost(Duration.ofSeconds(22)).untilTrue(b.leading);
        double seconds = (System.nanoTime() - stopped) / 1e9;
        System.out.printf("takeover %.1f s after the leader stopped%n", seconds);
        assertThat(seconds).as("not before the lease expired").isGreaterThan(10);
        Lease lease = cp.client().leases().inNamespace(ns).withName(LEASE).get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("takeover-b");
        assertThat(lease.getSpec().getLeaseTransitions()).isEqualTo(1);
      }
    }
  }

  @Test
  void aLeaderWhoseLeaseIsTakenStopsLeading(ControlPlane cp) throws Exception {
    String ns = namespace(cp, "lease-lost");
    try (Candidate a = new Candidate(cp, ns, "lost-a")) {
      await().atMost(Duration.ofSeconds(10)).untilTrue(a.leading);
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      // Taken by someone else; retried if it races with a renewal (409).
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(
              () ->
                  cp.client()
                          .leases()
                          .inNamespace(ns)
                          .withName(LEASE)
                          .edit(
                              l ->
                                  new LeaseBuilder(l)
                                      .editSpec()
                                      .withHolderIdentity("someone-else")
                                      .withRenewTime(now)
                                      .withLeaseDurationSeconds(60)
                                      .endSpec()
                                      .build())
                      != null);
      // The next renewal is refused (409: the Lease changed), the Lease is read again: taken.
      await().atMost(Duration.ofSeconds(10)).until(() -> a.stops.get() > 0);
      assertThat(a.leading).isFalse();
      Thread.sleep(3_000);
      assertThat(
              cp.client()
                  .leases()
                  .inNamespace(ns)
                  .withName(LEASE)
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .as("no write after losing it")
          .isEqualTo("someone-else");
    }
  }

  private static String namespace(ControlPlane cp, String name) {
    cp.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .createOr(n -> n.update());
    return name;
  }
}
