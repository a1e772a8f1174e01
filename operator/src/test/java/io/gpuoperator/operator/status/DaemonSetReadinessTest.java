package io.gpuoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class DaemonSetReadinessTest {
  static DaemonSet ds(String strategy, long generation) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName("nvidia-driver-daemonset")
        .withNamespace("gpu-operator")
        .withUid("ds-uid")
        .withGeneration(generation)
        .endMetadata()
        .withNewSpec()
        .withNewUpdateStrategy()
        .withType(strategy)
        .endUpdateStrategy()
        .endSpec()
        .build();
  }

  static DaemonSet withStatus(
      DaemonSet ds, long observed, int desired, int updated, int available) {
    ds.setStatus(
        new DaemonSetStatusBuilder()
            .withObservedGeneration(observed)
            .withDesiredNumberScheduled(desired)
            .withUpdatedNumberScheduled(updated)
            .withNumberAvailable(available)
            .build());
    return ds;
  }

  @Test
  void rollingUpdateNeedsObservedGenerationAndAllUpdatedAndAvailable() {
    assertThat(DaemonSetReadiness.fromStatus(ds("RollingUpdate", 2)).ready()).isFalse();
    var stale = DaemonSetReadiness.fromStatus(withStatus(ds("RollingUpdate", 2), 1, 2, 2, 2));
    assertThat(stale.ready()).isFalse();
    assertThat(stale.reason()).contains("observedGeneration 1 < 2");
    var partial = DaemonSetReadiness.fromStatus(withStatus(ds("RollingUpdate", 2), 2, 3, 3, 2));
    assertThat(partial.ready()).isFalse();
    assertThat(partial.nodesReady()).isEqualTo(2);
    assertThat(partial.nodesDesired()).isEqualTo(3);
    assertThat(partial.reason()).contains("2/3 nodes ready");
    var notUpdated = DaemonSetReadiness.fromStatus(withStatus(ds("RollingUpdate", 2), 2, 3, 1, 3));
    assertThat(notUpdated.ready()).isFalse();
    var ready = DaemonSetReadiness.fromStatus(withStatus(ds("RollingUpdate", 2), 2, 3, 3, 3));
    assertThat(ready.ready()).isTrue();
    assertThat(ready.reason()).isNull();
  }

  /** The metadata the DaemonSet controller gives what it creates for revision {@code hash}. */
  static ObjectMeta ownedByTheDaemonSet(String name, String hash) {
    return new ObjectMetaBuilder()
        .withName(name)
        .addToLabels("controller-revision-hash", hash)
        .addNewOwnerReference()
        .withKind("DaemonSet")
        .withName("nvidia-driver-daemonset")
        .withUid("ds-uid")
        .endOwnerReference()
        .build();
  }

  static ControllerRevision revision(long n, String hash) {
    return new ControllerRevisionBuilder()
        .withMetadata(ownedByTheDaemonSet("rev-" + n, hash))
        .withRevision(n)
        .build();
  }

  static Pod pod(String name, String hash, boolean ready) {
    return new PodBuilder()
        .withMetadata(ownedByTheDaemonSet(name, hash))
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void onDeleteCountsReadyPodsOfTheNewestRevisionOnly() {
    DaemonSet ds = withStatus(ds("OnDelete", 1), 1, 2, 2, 2);
    assertThat(DaemonSetReadiness.isOnDelete(ds)).isTrue();
    var revisions = List.of(revision(1, "old"), revision(2, "new"));
    var oldPods =
        DaemonSetReadiness.fromPods(
            ds, revisions, List.of(pod("a", "old", true), pod("b", "new", true)));
    assertThat(oldPods.ready()).isFalse();
    assertThat(oldPods.nodesReady()).isEqualTo(1);
    assertThat(oldPods.reason()).contains("1/2").contains("revision 2");
    var notReady =
        DaemonSetReadiness.fromPods(
            ds, revisions, List.of(pod("a", "new", false), pod("b", "new", true)));
    assertThat(notReady.ready()).isFalse();
    var ready =
        DaemonSetReadiness.fromPods(
            ds, revisions, List.of(pod("a", "new", true), pod("b", "new", true)));
    assertThat(ready.ready()).isTrue();
    assertThat(DaemonSetReadiness.fromPods(ds, List.of(), List.of()).reason())
        .contains("no ControllerRevision");
  }

  @Test
  void onDeleteWithFewerReadyPodsThanNodesIsNotReadyFromItsStatusAlone() {
    DaemonSet ds = withStatus(ds("OnDelete", 1), 1, 3, 3, 3);
    ds.getStatus().setNumberReady(2);
    var v = DaemonSetReadiness.notAllReady(ds);
    assertThat(v.ready()).isFalse();
    assertThat(v.nodesReady()).isEqualTo(2);
    assertThat(v.nodesDesired()).isEqualTo(3);
    assertThat(v.reason())
        .isEqualTo("DaemonSet gpu-operator/nvidia-driver-daemonset: 2/3 nodes have a ready pod");
  }
}
