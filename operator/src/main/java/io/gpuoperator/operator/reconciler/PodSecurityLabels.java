package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator namespace's Pod Security Admission labels when {@code spec.psa.enabled}, as the
 * original sets them: the driver, toolkit and MIG manager DaemonSets run privileged there, so
 * enforce, audit and warn are {@code privileged}. Written only when they differ; never removed (the
 * namespace is the administrator's once the policy lets go of it).
 */
final class PodSecurityLabels {
  private static final Logger LOG = LoggerFactory.getLogger(PodSecurityLabels.class);

  static final Map<String, String> LABELS =
      Map.of(
          "pod-security.kubernetes.io/enforce", "privileged",
          "pod-security.kubernetes.io/audit", "privileged",
          "pod-security.kubernetes.io/warn", "privileged");

  private PodSecurityLabels() {}

  static boolean wanted(ClusterPolicySpec spec) {
    return spec != null && spec.psa != null && Boolean.TRUE.equals(spec.psa.enabled);
  }

  /** Labels the namespace if its labels differ; returns whether it wrote. */
  static boolean ensure(KubernetesClient client, String namespace) {
    Namespace ns = client.namespaces().withName(namespace).get();
    Map<String, String> have =
        ns == null || ns.getMetadata().getLabels() == null
            ? Map.of()
            : ns.getMetadata().getLabels();
    Map<String, String> missing = new LinkedHashMap<>();
    LABELS.forEach(
        (k, v) -> {
          if (!v.equals(have.get(k))) {
            missing.put(k, v);
          }
        });
    if (ns == null || missing.isEmpty()) {
      return false;
    }
    LOG.info("Namespace {}: setting pod-security labels {}", namespace, missing);
    StringBuilder patch = new StringBuilder("{\"metadata\":{\"labels\":{");
    String sep = "";
    for (var e : missing.entrySet()) {
      patch
          .append(sep)
          .append('"')
          .append(e.getKey())
          .append("\":\"")
          .append(e.getValue())
          .append('"');
      sep = ",";
    }
    patch.append("}}}");
    client
        .namespaces()
        .resource(PatchTarget.of(Namespace::new, null, namespace))
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    return true;
  }
}
