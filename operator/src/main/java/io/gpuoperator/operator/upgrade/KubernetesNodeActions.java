package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link NodeActions} against the API server. */
public final class KubernetesNodeActions implements NodeActions {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesNodeActions.class);

  private final KubernetesClient client;

  public KubernetesNodeActions(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public List<Pod> podsOn(String node, String labelSelector) {
    var pods = client.pods().inAnyNamespace().withField("spec.nodeName", node);
    return (labelSelector == null ? pods : pods.withLabelSelector(labelSelector)).list().getItems();
  }

  /**
   * POSTs a {@code policy/v1} Eviction with the pod's UID as precondition, so a pod recreated under
   * the same name is never evicted by mistake. (fabric8's {@code evict()} without an argument still
   * sends {@code policy/v1beta1}, which Kubernetes removed in 1.25.)
   */
  @Override
  public Eviction evict(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    var eviction =
        new EvictionBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .endMetadata()
            .withDeleteOptions(
                new DeleteOptionsBuilder()
                    .withNewPreconditions()
                    .withUid(pod.getMetadata().getUid())
                    .endPreconditions()
                    .build())
            .build();
    try {
      if (client.pods().inNamespace(ns).withName(name).evict(eviction)) {
        LOG.info("Pod {}/{} on node {}: evicted", ns, name, pod.getSpec().getNodeName());
        return Eviction.EVICTED;
      }
      return Eviction.BLOCKED;
    } catch (KubernetesClientException e) {
      // 404: gone; 409: the UID precondition failed, so the pod we meant is gone too.
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND
          || e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Eviction.GONE;
      }
      throw e;
    }
  }

  /** Deletes by name: DaemonSet pod names carry a random suffix, so none is ever reused. */
  @Override
  public void deleteDriverPod(DriverPod pod) {
    client.pods().inNamespace(pod.namespace()).withName(pod.name()).delete();
    LOG.info("Pod {}: driver pod deleted for the upgrade", pod);
  }
}
