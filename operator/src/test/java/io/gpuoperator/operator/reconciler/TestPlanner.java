package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A minimal planner for reconciler ITs: GPU nodes by the NFD PCI label, one deploy label, taint.
 */
final class TestPlanner implements NodeLabelPlanner {
  static final String NFD_GPU = "feature.node.kubernetes.io/pci-10de.present";

  @Override
  public Optional<String> mergePatch(Node node, ClusterPolicy policy) {
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    if (!"true".equals(labels.get(NFD_GPU))) {
      return Optional.empty();
    }
    Map<String, Object> set = new LinkedHashMap<>();
    if (!"true".equals(labels.get("nvidia.com/gpu.present"))) {
      set.put("nvidia.com/gpu.present", "true");
    }
    if (labels.get("nvidia.com/gpu.deploy.device-plugin") == null) {
      set.put("nvidia.com/gpu.deploy.device-plugin", "true");
    }
    List<Taint> taints =
        node.getSpec() == null || node.getSpec().getTaints() == null
            ? new ArrayList<>()
            : new ArrayList<>(node.getSpec().getTaints());
    boolean tainted = taints.stream().anyMatch(t -> "nvidia.com/gpu".equals(t.getKey()));
    if (set.isEmpty() && tainted) {
      return Optional.empty();
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (!set.isEmpty()) {
      metadata.put("labels", set);
    }
    if (!tainted) {
      taints.add(new Taint("NoSchedule", "nvidia.com/gpu", null, "present"));
      metadata.put("resourceVersion", node.getMetadata().getResourceVersion());
      patch.put("spec", Map.of("taints", taints));
    }
    patch.put("metadata", metadata);
    return Optional.of(Serialization.asJson(patch));
  }
}
