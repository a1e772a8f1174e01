package io.gpuoperator.node.discovery;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The JSON merge patch that brings a Node's labels to the desired set, touching only what differs:
 * labels with another value are set, labels this agent wrote before (listed in the {@link
 * GfdLabels#MANAGED_LABELS_ANNOTATION} annotation) and no longer wanted are removed, and nothing
 * else. Empty when the Node is already right, so an idle agent writes nothing.
 */
public final class NodeLabelPatch {
  private NodeLabelPatch() {}

  /** The patch body ({@code {"metadata": {...}}}), or empty when nothing differs. */
  public static Optional<Map<String, Object>> compute(
      SortedMap<String, String> desired, Map<String, String> current, String managedAnnotation) {
    Map<String, String> labels = current == null ? Map.of() : current;
    Map<String, Object> changes = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : desired.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        changes.put(e.getKey(), e.getValue());
      }
    }
    for (String key : managed(managedAnnotation)) {
      if (!desired.containsKey(key) && labels.containsKey(key)) {
        changes.put(key, null);
      }
    }
    String newManaged = String.join(",", desired.keySet());
    boolean annotationChanged =
        !newManaged.equals(managedAnnotation == null ? "" : managedAnnotation);
    if (changes.isEmpty() && !annotationChanged) {
      return Optional.empty();
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (!changes.isEmpty()) {
      metadata.put("labels", changes);
    }
    if (annotationChanged) {
      metadata.put("annotations", Map.of(GfdLabels.MANAGED_LABELS_ANNOTATION, newManaged));
    }
    return Optional.of(Map.of("metadata", metadata));
  }

  /** The label keys listed in the annotation. */
  public static TreeSet<String> managed(String annotation) {
    if (annotation == null || annotation.isBlank()) {
      return new TreeSet<>();
    }
    return Arrays.stream(annotation.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
