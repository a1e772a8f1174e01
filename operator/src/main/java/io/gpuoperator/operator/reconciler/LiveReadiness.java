package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.operator.status.DaemonSetReadiness;
import io.gpuoperator.operator.status.OperandReadiness;
import java.util.List;
import java.util.Map;

/**
 * Readiness of a live DaemonSet: from its status, or for OnDelete DaemonSets (the driver) from its
 * pods and ControllerRevisions, listed live by its selector in its namespace only when its status
 * says every node has a ready pod (then only the pods tell whether they run the newest revision);
 * the operator never caches Pods.
 */
final class LiveReadiness {
  private LiveReadiness() {}

  /** The verdict for one live DaemonSet. */
  static DaemonSetReadiness.Verdict verdict(KubernetesClient client, DaemonSet ds) {
    if (!DaemonSetReadiness.isOnDelete(ds)) {
      return DaemonSetReadiness.fromStatus(ds);
    }
    if (ds.getStatus() == null
        || ds.getStatus().getDesiredNumberScheduled() == null
        || ds.getStatus().getDesiredNumberScheduled() == 0) {
      return DaemonSetReadiness.fromPods(ds, List.of(), List.of());
    }
    Integer numberReady = ds.getStatus().getNumberReady();
    if (numberReady == null || numberReady < ds.getStatus().getDesiredNumberScheduled()) {
      // Fewer ready pods than nodes, whatever their revision: not ready, and no need to list
      // every pod of the DaemonSet for it (during a rollout to 1,000 nodes that list is megabytes
      // each time a DaemonSet's status moves).
      return DaemonSetReadiness.notAllReady(ds);
    }
    Map<String, String> selector = ds.getSpec().getSelector().getMatchLabels();
    String ns = ds.getMetadata().getNamespace();
    List<ControllerRevision> revisions =
        client.apps().controllerRevisions().inNamespace(ns).withLabels(selector).list().getItems();
    List<Pod> pods = client.pods().inNamespace(ns).withLabels(selector).list().getItems();
    return DaemonSetReadiness.fromPods(ds, revisions, pods);
  }

  /** One DaemonSet's readiness under a name. */
  static OperandReadiness of(KubernetesClient client, String name, DaemonSet ds) {
    DaemonSetReadiness.Verdict v = verdict(client, ds);
    return new OperandReadiness(name, v.ready(), v.nodesReady(), v.nodesDesired(), v.reason());
  }
}
