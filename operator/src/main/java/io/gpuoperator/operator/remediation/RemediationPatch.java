package io.gpuoperator.operator.remediation;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.operator.upgrade.NodePatch;

/**
 * A {@link RemediationStep}'s node changes as one JSON merge patch: state label, annotations,
 * cordon and taint together, so a node is never tainted without its state saying so. A merge patch
 * replaces the taint list whole, so a patch that changes it carries the resourceVersion it was
 * computed from: a taint someone added meanwhile makes it fail (409) and the next pass recomputes,
 * rather than dropping theirs. Pure.
 */
public final class RemediationPatch {
  private RemediationPatch() {}

  public static String of(RemediationNode n, RemediationStep step, String resourceVersion) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode root = f.objectNode();
    ObjectNode metadata = root.putObject("metadata");
    ObjectNode labels = metadata.putObject("labels");
    if (step.to() == RemediationState.NONE) {
      labels.putNull(RemediationKeys.STATE);
    } else if (step.to() != null) {
      labels.put(RemediationKeys.STATE, step.to().label());
    }
    ObjectNode annotations = metadata.putObject("annotations");
    step.annotations().forEach((k, v) -> NodePatch.put(annotations, k, v));
    ObjectNode spec = f.objectNode();
    if (step.unschedulable() != null) {
      NodePatch.cordon(spec, step.unschedulable());
    }
    if (step.taint() != null) {
      ArrayNode taints = f.arrayNode();
      for (Taint t : n.taints()) {
        if (!RemediationKeys.TAINT.equals(t.getKey())) {
          taints.add(Serialization.jsonMapper().valueToTree(t));
        }
      }
      if (!step.taint().isEmpty()) {
        taints
            .addObject()
            .put("key", RemediationKeys.TAINT)
            .put("value", step.taint())
            .put("effect", RemediationKeys.TAINT_EFFECT);
      }
      spec.set("taints", taints);
      if (resourceVersion != null) {
        metadata.put("resourceVersion", resourceVersion);
      }
    }
    if (!spec.isEmpty()) {
      root.set("spec", spec);
    }
    return root.toString();
  }
}
