package io.gpuoperator.operator.labels;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What must change on one node so that it carries exactly the operator-owned labels and GPU taint
 * the policy wants. Built by {@link NodeLabelRules}; sent as one JSON merge patch.
 *
 * @param nodeName the node
 * @param resourceVersion the node's resourceVersion the change was computed from
 * @param labelsToSet labels to add or change (key to new value)
 * @param labelsToRemove operator-owned labels to delete
 * @param annotationsToSet annotations to add or change (the driver-upgrade annotation)
 * @param annotationsToRemove operator-owned annotations to delete
 * @param taintToAdd the GPU taint to add, or null
 * @param taintsToRemove operator-owned taints to delete (same key as the GPU taint but stale, or
 *     any taint with that key on a node that must not have it)
 * @param taints the node's complete taint list after the change, or null when taints are unchanged
 *     (Node taints are a plain list in patches: the whole list has to be sent)
 */
public record NodeLabelChange(
    String nodeName,
    String resourceVersion,
    Map<String, String> labelsToSet,
    Set<String> labelsToRemove,
    Map<String, String> annotationsToSet,
    Set<String> annotationsToRemove,
    Taint taintToAdd,
    List<Taint> taintsToRemove,
    List<Taint> taints) {

  public NodeLabelChange {
    labelsToSet = Collections.unmodifiableSortedMap(new TreeMap<>(labelsToSet));
    labelsToRemove = Collections.unmodifiableSortedSet(new TreeSet<>(labelsToRemove));
    annotationsToSet = Collections.unmodifiableSortedMap(new TreeMap<>(annotationsToSet));
    annotationsToRemove = Collections.unmodifiableSortedSet(new TreeSet<>(annotationsToRemove));
    taintsToRemove = List.copyOf(taintsToRemove);
    taints = taints == null ? null : List.copyOf(taints);
  }

  /** True when the node already matches: no patch must be sent. */
  public boolean isEmpty() {
    return labelsToSet.isEmpty()
        && labelsToRemove.isEmpty()
        && annotationsToSet.isEmpty()
        && annotationsToRemove.isEmpty()
        && taints == null;
  }

  /** Whether the change touches the taint list. */
  public boolean changesTaints() {
    return taints != null;
  }

  /**
   * The change as a JSON merge patch (RFC 7386) body: labels set or nulled; when the taints change
   * the whole new taint list plus {@code metadata.resourceVersion}, so that the API server rejects
   * the patch with 409 Conflict if someone else changed the node (taints have no merge key).
   */
  public Map<String, Object> toMergePatch() {
    Map<String, Object> patch = new LinkedHashMap<>();
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (!labelsToSet.isEmpty() || !labelsToRemove.isEmpty()) {
      Map<String, Object> labels = new LinkedHashMap<>();
      labelsToSet.forEach(labels::put);
      labelsToRemove.forEach(key -> labels.put(key, null));
      metadata.put("labels", labels);
    }
    if (!annotationsToSet.isEmpty() || !annotationsToRemove.isEmpty()) {
      Map<String, Object> annotations = new LinkedHashMap<>();
      annotationsToSet.forEach(annotations::put);
      annotationsToRemove.forEach(key -> annotations.put(key, null));
      metadata.put("annotations", annotations);
    }
    if (taints != null) {
      if (resourceVersion != null) {
        metadata.put("resourceVersion", resourceVersion);
      }
      List<Map<String, Object>> list = new ArrayList<>();
      for (Taint taint : taints) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("key", taint.getKey());
        if (taint.getValue() != null) {
          t.put("value", taint.getValue());
        }
        t.put("effect", taint.getEffect());
        if (taint.getTimeAdded() != null) {
          t.put("timeAdded", taint.getTimeAdded());
        }
        list.add(t);
      }
      patch.put("spec", Map.of("taints", list));
    }
    if (!metadata.isEmpty()) {
      patch.put("metadata", metadata);
    }
    return patch;
  }

  /** {@link #toMergePatch()} as JSON, for {@code PatchContext} of type JSON_MERGE. */
  public String toMergePatchJson() {
    return Serialization.asJson(toMergePatch());
  }

  /** One line for logs and {@code plan}: "+key=value -key +taint k=v:E". */
  public String describe() {
    List<String> parts = new ArrayList<>();
    labelsToSet.forEach((k, v) -> parts.add("+" + k + "=" + v));
    labelsToRemove.forEach(k -> parts.add("-" + k));
    annotationsToSet.forEach((k, v) -> parts.add("+annotation " + k + "=" + v));
    annotationsToRemove.forEach(k -> parts.add("-annotation " + k));
    if (taintToAdd != null) {
      parts.add("+taint " + NodeLabelRules.format(taintToAdd));
    }
    taintsToRemove.forEach(t -> parts.add("-taint " + NodeLabelRules.format(t)));
    return parts.isEmpty() ? "(no change)" : String.join(" ", parts);
  }
}
