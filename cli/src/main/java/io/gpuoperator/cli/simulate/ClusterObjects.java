package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import java.util.List;
import java.util.Map;

/**
 * Creates the cluster file's {@code objects:} (a ConfigMap the policy names, such as the vGPU
 * device manager's layouts) after the CRDs and the operator's namespace exist and before the
 * policy: what a user would {@code kubectl apply} before installing the operator. A namespaced
 * object without a namespace goes to the operator's.
 */
final class ClusterObjects {
  private ClusterObjects() {}

  static void create(KubernetesClient client, String namespace, List<Map<String, Object>> objects) {
    for (int i = 0; i < objects.size(); i++) {
      GenericKubernetesResource o =
          client
              .getKubernetesSerialization()
              .convertValue(objects.get(i), GenericKubernetesResource.class);
      try {
        boolean namespaced = namespaced(client, o, i);
        var kind = client.genericKubernetesResources(o.getApiVersion(), o.getKind());
        if (namespaced && o.getMetadata().getNamespace() == null) {
          kind.inNamespace(namespace).resource(o).create();
        } else {
          kind.resource(o).create();
        }
      } catch (KubernetesClientException e) {
        String problem =
            e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        String what = where(i, o) + ": the API server refused it: " + problem;
        // 4xx: the object is wrong (bad input, exit 2); anything else is the cluster's trouble.
        throw e.getCode() >= 400 && e.getCode() < 500
            ? new ConfigException(what, e)
            : new EnvironmentException(what, e);
      }
    }
  }

  private static String where(int i, GenericKubernetesResource o) {
    return "--cluster-file objects["
        + i
        + "] ("
        + o.getKind()
        + " "
        + o.getMetadata().getName()
        + ")";
  }

  /** Whether the API server serves the object's kind per namespace; unknown kinds are an error. */
  private static boolean namespaced(KubernetesClient client, GenericKubernetesResource o, int i) {
    var resources = client.getApiResources(o.getApiVersion());
    if (resources != null) {
      for (var r : resources.getResources()) {
        if (r.getKind().equals(o.getKind()) && !r.getName().contains("/")) {
          return Boolean.TRUE.equals(r.getNamespaced());
        }
      }
    }
    throw new ConfigException(
        where(i, o)
            + ": the API server serves no kind "
            + o.getKind()
            + " in "
            + o.getApiVersion()
            + " (a typo, or a CRD that is not installed?)");
  }
}
