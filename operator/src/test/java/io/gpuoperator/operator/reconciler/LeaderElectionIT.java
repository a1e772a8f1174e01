package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two operator instances with their own clients and identities share one Lease with the default
 * timings (15 s lease, 10 s renew deadline, 2 s retry). Killing the leader (it stops without
 * releasing the lease, as a crashed pod would) lets the other take over and resume: the lease runs
 * out (15 s), the follower's next attempt takes it (2-4.4 s), then its controllers start and sync
 * their caches (a follower keeps none, as the original's) before the first node is labelled: 17.7 s
 * on a loaded machine, so the bound is 30 s rather than a figure that load can cross.
 */
@ExtendWith(ControlPlaneExtension.class)
class LeaderElectionIT {
  static final String GPU = "nvidia.com/gpu.present";

  @Test
  void secondInstanceTakesOverOnceTheLeaseRunsOut(ControlPlane cp) throws Exception {
    OperatorFixture it = OperatorFixture.start(cp);
    KubernetesClient admin = it.admin();
    AuditLog audit = it.audit();
    OperatorInstance a = it.operator();
    OperatorInstance b = null;
    try {
      await().atMost(Duration.ofSeconds(20)).until(a.operator::isLeader);
      b = OperatorInstance.on(cp, it.ns(), "le-b").start();
      admin.resource(ItCluster.samplePolicy("leader-policy")).create();
      admin.nodes().resource(ItCluster.node("it-le-1", ItCluster.NFD_GPU)).create();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  "true"
                      .equals(
                          admin
                              .nodes()
                              .withName("it-le-1")
                              .get()
                              .getMetadata()
                              .getLabels()
                              .get(GPU)));
      assertThat(b.operator.isLeader()).isFalse();
      long mark = audit.mark();
      Thread.sleep(3_000);
      assertThat(audit.writesSince(mark, b.userAgent)).as("a follower writes nothing").isEmpty();

      long killed = System.nanoTime();
      a.close();
      a = null;
      admin.nodes().resource(ItCluster.node("it-le-2", ItCluster.NFD_GPU)).create();
      OperatorInstance follower = b;
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  follower.operator.isLeader()
                      && "true"
                          .equals(
                              admin
                                  .nodes()
                                  .withName("it-le-2")
                                  .get()
                                  .getMetadata()
                                  .getLabels()
                                  .get(GPU)));
      double seconds = (System.nanoTime() - killed) / 1e9;
      System.out.printf(
          "takeover: node labelled by the new leader %.1f s after the kill%n", seconds);
      assertThat(seconds).as("not before the lease ran out").isGreaterThan(10).isLessThan(30);
      assertThat(audit.writesSince(mark, b.userAgent))
          .anyMatch(w -> w.resource().equals("nodes") && "it-le-2".equals(w.name()));
    } finally {
      if (a != null) {
        a.close();
      }
      if (b != null) {
        b.close();
      }
      admin.resources(ClusterPolicy.class).withName("leader-policy").delete();
      for (String n : List.of("it-le-1", "it-le-2")) {
        admin.nodes().withName(n).delete();
      }
    }
  }
}
