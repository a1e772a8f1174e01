package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.sim.kubelet.KubeletOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ControlPlaneSizingTest {
  @Test
  void upTo100NodesEveryComponentKeepsKubernetesDefaults() {
    for (int n : new int[] {1, 5, 100}) {
      ControlPlaneSizing s = ControlPlaneSizing.forNodes(n);
      assertThat(s.apiServerArgs()).as("%d nodes", n).isEmpty();
      assertThat(s.controllerManagerArgs()).as("%d nodes", n).isEmpty();
      assertThat(s.schedulerArgs()).as("%d nodes", n).isEmpty();
      assertThat(s.auditsNodeStatus()).as("%d nodes", n).isTrue();
      assertThat(s.heartbeat(Duration.ofSeconds(10))).as("%d nodes", n).hasSeconds(10);
      assertThat(s.heartbeat("40s")).as("%d nodes", n).isEqualTo("40s");
    }
  }

  @Test
  void a1000NodeClusterRenewsLeasesAQuarterAsOftenWithTheGracePeriodStretchedAlike() {
    ControlPlaneSizing s = ControlPlaneSizing.forNodes(1000);
    assertThat(s.heartbeat(Duration.ofSeconds(10))).hasSeconds(40);
    assertThat(s.heartbeat("40s")).isEqualTo("160s");
    assertThat(s.heartbeat("1m30s")).as("only whole seconds are read").isEqualTo("1m30s");
    KubeletOptions stretched =
        KubeletOptions.defaults()
            .withLeaseRenewInterval(s.heartbeat(KubeletOptions.defaults().leaseRenewInterval()));
    // The Lease says what the kubelet's nodeLeaseDurationSeconds would: four renewals.
    assertThat(stretched.leaseDurationSeconds()).isEqualTo(160);
    assertThat(KubeletOptions.defaults().leaseDurationSeconds()).isEqualTo(40);
  }

  @Test
  void a1000NodeClusterGetsFourTimesTheDefaultsWithinTheCaps() {
    ControlPlaneSizing s = ControlPlaneSizing.forNodes(1000);
    assertThat(s.apiServerArgs())
        .containsExactly("--max-requests-inflight=1600", "--max-mutating-requests-inflight=800");
    assertThat(s.controllerManagerArgs())
        .containsExactly(
            "--kube-api-qps=100", "--kube-api-burst=200", "--concurrent-daemonset-syncs=5");
    assertThat(s.schedulerArgs()).containsExactly("--kube-api-qps=200", "--kube-api-burst=400");
    assertThat(s.auditsNodeStatus()).isFalse();
    assertThat(ControlPlaneSizing.forNodes(5000)).isEqualTo(s);
  }

  @Test
  void sizesInBetweenGrowWithTheNodeCount() {
    int previous = 400;
    for (int n = 150; n <= 1000; n += 50) {
      String inflight = ControlPlaneSizing.forNodes(n).apiServerArgs().get(0);
      int value = Integer.parseInt(inflight.substring(inflight.indexOf('=') + 1));
      assertThat(value).as("%d nodes", n).isGreaterThan(previous);
      previous = value;
    }
  }
}
