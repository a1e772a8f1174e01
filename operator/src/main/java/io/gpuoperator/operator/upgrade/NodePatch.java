package io.gpuoperator.operator.upgrade;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/** A {@link Step}'s node changes as one JSON merge patch (null removes a key). Pure. */
public final class NodePatch {
  private NodePatch() {}

  public static String of(Step step) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode root = f.objectNode();
    ObjectNode metadata = f.objectNode();
    ObjectNode labels = f.objectNode();
    step.labels().forEach((k, v) -> put(labels, k, v));
    if (step.to() != null) {
      put(labels, UpgradeKeys.STATE, step.to() == UpgradeState.UNKNOWN ? null : step.to().label());
    }
    ObjectNode annotations = f.objectNode();
    step.annotations().forEach((k, v) -> put(annotations, k, v));
    if (!labels.isEmpty()) {
      metadata.set("labels", labels);
    }
    if (!annotations.isEmpty()) {
      metadata.set("annotations", annotations);
    }
    if (!metadata.isEmpty()) {
      root.set("metadata", metadata);
    }
    if (step.unschedulable() != null) {
      ObjectNode spec = f.objectNode();
      cordon(spec, step.unschedulable());
      root.set("spec", spec);
    }
    return root.toString();
  }

  /** Cordons the node (true) or, as kubectl uncordon does, removes the field (false). */
  public static void cordon(ObjectNode spec, boolean unschedulable) {
    if (unschedulable) {
      spec.put("unschedulable", true);
    } else {
      spec.putNull("unschedulable");
    }
  }

  /** Sets a key of a merge patch's map; a null value removes the key. */
  public static void put(ObjectNode node, String key, String value) {
    if (value == null) {
      node.putNull(key);
    } else {
      node.put(key, value);
    }
  }

  /** Whether applying the patch's label and annotation values would change nothing. */
  static boolean noop(Step step, Map<String, String> labels, Map<String, String> annotations) {
    return step.labels().entrySet().stream().allMatch(e -> same(labels, e.getKey(), e.getValue()))
        && step.annotations().entrySet().stream()
            .allMatch(e -> same(annotations, e.getKey(), e.getValue()));
  }

  private static boolean same(Map<String, String> map, String key, String value) {
    return value == null ? !map.containsKey(key) : value.equals(map.get(key));
  }
}
