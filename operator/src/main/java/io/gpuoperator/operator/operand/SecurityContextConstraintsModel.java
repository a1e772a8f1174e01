package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.cluster.OpenShift;
import java.util.List;

/**
 * An operand's OpenShift SecurityContextConstraints ({@code *_scc_openshift.yaml} in its manifest
 * folder): rendered only on OpenShift, where they are what lets its privileged pods in; elsewhere
 * the kind does not exist. As in the original, each is named after the operand's ServiceAccount and
 * granted to it alone ({@code users}), so no other pod of the namespace gets its privileges.
 */
final class SecurityContextConstraintsModel {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private SecurityContextConstraintsModel() {}

  /** Whether the object is a SecurityContextConstraints. */
  static boolean is(HasMetadata object) {
    return OpenShift.SCC_KIND.equals(object.getKind())
        && OpenShift.SCC_API_VERSION.equals(object.getApiVersion());
  }

  /**
   * Whether to render the object: anything but an SCC always, an SCC only on OpenShift ({@link
   * io.gpuoperator.operator.cluster.ClusterFacts#openShift}).
   */
  static boolean keep(HasMetadata object, RenderContext ctx) {
    return !is(object) || ctx.facts().openShift();
  }

  /**
   * Grants the SCC to the ServiceAccount of its name in the operator namespace, the original's
   * {@code system:serviceaccount:<namespace>:<name>}; returns the object to render (an SCC as a
   * generic object, whether or not OpenShift's model classes are on the class path), any other
   * object as it is.
   */
  static HasMetadata grant(HasMetadata object, RenderContext ctx) {
    if (!is(object)) {
      return object;
    }
    GenericKubernetesResource scc =
        object instanceof GenericKubernetesResource g
            ? g
            : SERIALIZATION.convertValue(object, GenericKubernetesResource.class);
    scc.setAdditionalProperty("users", List.of(user(ctx.namespace(), scc)));
    return scc;
  }

  /** The service-account user an SCC of the operator namespace is granted to. */
  static String user(String namespace, HasMetadata scc) {
    return "system:serviceaccount:" + namespace + ":" + scc.getMetadata().getName();
  }
}
