package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import java.util.Set;

/** Facts about the kinds operands consist of: scope, and which need the Prometheus operator. */
public final class Kinds {
  public static final String API_VERSION = "monitoring.coreos.com/v1";
  public static final String SERVICE_MONITOR = "ServiceMonitor";
  public static final String SERVICE_MONITOR_CRD = "servicemonitors.monitoring.coreos.com";

  /**
   * Installed with ServiceMonitor by the Prometheus Operator; rendered under the same condition.
   */
  public static final String PROMETHEUS_RULE = "PrometheusRule";

  public static final String PROMETHEUS_RULE_CRD = "prometheusrules.monitoring.coreos.com";

  private static final Set<String> CLUSTER_SCOPED =
      Set.of(
          "ClusterRole",
          "ClusterRoleBinding",
          "RuntimeClass",
          "Namespace",
          "PriorityClass",
          "CustomResourceDefinition");

  private Kinds() {}

  /** Whether the object is a monitoring.coreos.com object (needs that CRD to exist). */
  public static boolean isMonitoring(HasMetadata o) {
    return o.getApiVersion() != null && o.getApiVersion().startsWith("monitoring.coreos.com/");
  }

  /** Whether the object lives in a namespace. */
  public static boolean isNamespaced(HasMetadata o) {
    if (o instanceof GenericKubernetesResource) {
      return !CLUSTER_SCOPED.contains(o.getKind());
    }
    return o instanceof Namespaced;
  }
}
