package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.Violation;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The operator keeps retrying through an API server outage longer than JOSDK's default retry budget
 * (5 attempts, about 26 s) and converges once the server is back, with no new event: a reconcile
 * starts, the API server is stopped before it writes anything, and nothing touches the policy
 * afterwards. The operator's client has its own request retries off, so what is measured is the
 * reconcile retry, not fabric8's. Then, with a short RESYNC_PERIOD, an object deleted behind the
 * operator's back (a ConfigMap, which it does not watch) comes back by the periodic resync.
 *
 * <p>Its own control plane (etcd and kube-apiserver only), since it stops the API server.
 */
class ReconcileRetryIT {
  private static final Duration OUTAGE = Duration.ofSeconds(40);

  /** The production renderer, holding its first render until the test has stopped the server. */
  static final class HeldRenderer implements PolicyRenderer {
    final CountDownLatch rendering = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final PolicyRenderer delegate = new OperandRegistryRenderer();

    @Override
    public List<Violation> validate(ClusterPolicy policy) {
      return delegate.validate(policy);
    }

    @Override
    public List<RenderedOperand> render(
        ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
      rendering.countDown();
      try {
        release.await(2, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.render(policy, facts, config);
    }
  }

  @Test
  void convergesAfterALongOutageWithoutANewEventAndResyncsPeriodically() throws Exception {
    try (ControlPlane cp = ControlPlane.builder().start()) {
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      String ns = "retry";
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      admin.nodes().resource(ItCluster.node("retry-gpu", ItCluster.NFD_GPU)).create();

      HeldRenderer renderer = new HeldRenderer();
      try (OperatorInstance operator =
          OperatorInstance.on(cp, ns, "retry")
              .renderer(renderer)
              .withoutLeaderElection()
              .env(Map.of("RECONCILE_BACKOFF_MAX", "2s", "RESYNC_PERIOD", "1h"))
              .clientConfig(c -> c.setRequestRetryBackoffLimit(3))
              .start()) {
        admin.resource(ItCluster.samplePolicy("retry-policy")).create();
        assertThat(renderer.rendering.await(60, TimeUnit.SECONDS)).isTrue();

        cp.stopApiServer();
        renderer.release.countDown(); // the pass now applies against a stopped server and fails
        Thread.sleep(OUTAGE.toMillis());
        cp.restartApiServer();

        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  assertThat(admin.apps().daemonSets().inNamespace(ns).list().getItems())
                      .extracting(d -> d.getMetadata().getName())
                      .contains("nvidia-device-plugin-daemonset", "nvidia-driver-daemonset");
                  ClusterPolicy p =
                      admin.resources(ClusterPolicy.class).withName("retry-policy").get();
                  assertThat(p.getStatus()).isNotNull();
                  assertThat(p.getStatus().operands).isNotEmpty();
                });
      }

      // A periodic resync repairs what no event reports.
      String configMap = "default-mig-parted-config";
      assertThat(admin.configMaps().inNamespace(ns).withName(configMap).get()).isNotNull();
      try (OperatorInstance operator =
          OperatorInstance.on(cp, ns, "resync")
              .withoutLeaderElection()
              .env(Map.of("RECONCILE_BACKOFF_MAX", "2s", "RESYNC_PERIOD", "3s"))
              .start()) {
        // Let its first pass finish (it finds everything in place), then delete behind its back.
        long first = operator.operator.metrics().reconciliations();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> operator.operator.metrics().reconciliations() > first);
        admin.configMaps().inNamespace(ns).withName(configMap).delete();
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(admin.configMaps().inNamespace(ns).withName(configMap).get())
                        .isNotNull());
      }
    }
  }
}
