package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicyStatus;
import io.gpuoperator.operator.status.PolicyStatusModel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one writer of ClusterPolicy status: a pass hands it the status it concluded, once, and it
 * patches the status subresource only when that says something new. The cached policy can lag
 * behind this process's own last write, so that write is remembered (per policy uid) and counts as
 * the current status until the cache has seen a newer version of the policy.
 */
final class ClusterPolicyStatusWriter {
  private final KubernetesClient client;
  private final Map<String, Written> lastWritten = new ConcurrentHashMap<>();

  ClusterPolicyStatusWriter(KubernetesClient client) {
    this.client = client;
  }

  private record Written(String resourceVersion, ClusterPolicyStatus status) {}

  /** Forgets the policies that no longer exist. */
  void retainOnly(Set<String> uids) {
    lastWritten.keySet().retainAll(uids);
  }

  /**
   * The status a pass builds on: the cached policy's, unless this process has written a newer one
   * the cache has not caught up with. From the stale one, a condition that just changed would get a
   * new transition time, differ from what was written, and make an idle pass write again.
   */
  ClusterPolicyStatus previous(ClusterPolicy policy) {
    Written last = lastWritten.get(policy.getMetadata().getUid());
    if (last != null && !newer(policy.getMetadata().getResourceVersion(), last.resourceVersion())) {
      return last.status();
    }
    return policy.getStatus();
  }

  /** Patches the status subresource when it says something new; returns whether it wrote. */
  boolean write(ClusterPolicy policy, ClusterPolicyStatus status) {
    if (PolicyStatusModel.sameAs(policy.getStatus(), status)) {
      return false;
    }
    Written last = lastWritten.get(policy.getMetadata().getUid());
    if (last != null
        && !newer(policy.getMetadata().getResourceVersion(), last.resourceVersion())
        && PolicyStatusModel.sameAs(last.status(), status)) {
      return false;
    }
    // JSON patch "add" replaces /status whole (a merge patch would keep stale keys).
    String patch =
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + Serialization.asJson(status) + "}]";
    ClusterPolicy written =
        client
            .resources(ClusterPolicy.class)
            .withName(policy.getMetadata().getName())
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), patch);
    lastWritten.put(
        policy.getMetadata().getUid(),
        new Written(written.getMetadata().getResourceVersion(), status));
    policy.setStatus(status);
    return true;
  }

  /** Whether resourceVersion a is newer than b (numeric on every API server in practice). */
  private static boolean newer(String a, String b) {
    try {
      return Long.parseLong(a) > Long.parseLong(b);
    } catch (RuntimeException e) {
      return true;
    }
  }
}
