package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.Crds;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the operator's own CRDs up to what this build needs, at start: Helm installs CRDs once and
 * never upgrades them, so after {@code helm upgrade} the API server would prune every field the new
 * operator added. A CRD is older when it lacks a version this build serves or a field of its
 * schema; then the operator replaces its spec with the build's (the same files as the chart's
 * {@code crds/}, {@link Crds}). A CRD with every field (the same, or newer: another replica already
 * upgraded it) is left alone, so replicas of two releases never take turns rewriting it.
 */
public final class CrdUpgrade {
  private static final Logger LOG = LoggerFactory.getLogger(CrdUpgrade.class);

  private CrdUpgrade() {}

  /**
   * What the installed CRD lacks that the bundled one has: versions ({@code v1}) and fields ({@code
   * v1:spec.driver.version}). Empty: the installed one is current or newer.
   */
  public static List<String> missing(
      CustomResourceDefinition installed, CustomResourceDefinition bundled) {
    List<String> out = new ArrayList<>();
    for (CustomResourceDefinitionVersion want : bundled.getSpec().getVersions()) {
      CustomResourceDefinitionVersion have =
          installed.getSpec().getVersions().stream()
              .filter(v -> v.getName().equals(want.getName()))
              .findFirst()
              .orElse(null);
      if (have == null) {
        out.add(want.getName());
        continue;
      }
      Set<String> haveFields = fields(have);
      for (String field : fields(want)) {
        if (!haveFields.contains(field)) {
          out.add(want.getName() + ":" + field);
        }
      }
    }
    return out;
  }

  private static Set<String> fields(CustomResourceDefinitionVersion version) {
    return version.getSchema() == null
        ? Set.of()
        : Crds.fieldPaths(version.getSchema().getOpenAPIV3Schema());
  }

  /**
   * Upgrades every older CRD. Returns the problems that keep the operator from running (a CRD not
   * installed, or one it may not or could not upgrade), each saying what to do; empty when all are
   * current.
   */
  public static List<String> ensure(KubernetesClient client) {
    List<String> problems = new ArrayList<>();
    for (CustomResourceDefinition want : Crds.load()) {
      String name = want.getMetadata().getName();
      try {
        CustomResourceDefinition have =
            client.apiextensions().v1().customResourceDefinitions().withName(name).get();
        if (have == null) {
          problems.add(
              "CRD "
                  + name
                  + " is not installed: install the chart (helm installs its crds/) or kubectl"
                  + " apply -f deploy/helm/gpu-operator/crds/");
          continue;
        }
        List<String> missing = missing(have, want);
        if (missing.isEmpty()) {
          continue;
        }
        LOG.info(
            "CRD {} is older than this operator (lacks {}): upgrading it",
            name,
            abbreviate(missing));
        have.setSpec(want.getSpec());
        client.resource(have).update();
        LOG.info("CRD {} upgraded", name);
      } catch (KubernetesClientException e) {
        problems.add(
            "CRD "
                + name
                + " could not be checked or upgraded ("
                + (e.getCode() == 403 ? "forbidden" : "HTTP " + e.getCode())
                + ": "
                + e.getMessage()
                + "): grant the operator update on customresourcedefinitions/"
                + name
                + " (the chart does) or kubectl apply -f deploy/helm/gpu-operator/crds/");
      }
    }
    return problems;
  }

  private static String abbreviate(List<String> fields) {
    return fields.size() <= 5
        ? String.join(", ", fields)
        : String.join(", ", fields.subList(0, 5)) + " and " + (fields.size() - 5) + " more";
  }
}
