package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Applies a policy's {@link ServiceMonitorConfig} to a rendered ServiceMonitor. */
final class ServiceMonitors {
  private ServiceMonitors() {}

  static boolean is(Object object) {
    return object instanceof GenericKubernetesResource g
        && ManagedObjects.SERVICE_MONITOR.equals(g.getKind());
  }

  /** Fills the namespace selector's placeholder with the operator namespace. */
  @SuppressWarnings("unchecked")
  static void namespace(GenericKubernetesResource sm, String namespace) {
    Map<String, Object> spec = (Map<String, Object>) sm.getAdditionalProperties().get("spec");
    Object selector = spec == null ? null : spec.get("namespaceSelector");
    if (selector instanceof Map<?, ?> m && m.get("matchNames") instanceof List<?>) {
      ((Map<String, Object>) m).put("matchNames", new ArrayList<>(List.of(namespace)));
    }
  }

  @SuppressWarnings("unchecked")
  static void apply(GenericKubernetesResource sm, ServiceMonitorConfig config) {
    if (config == null) {
      return;
    }
    if (config.additionalLabels != null) {
      sm.getMetadata().getLabels().putAll(config.additionalLabels);
    }
    Map<String, Object> spec = (Map<String, Object>) sm.getAdditionalProperties().get("spec");
    List<Map<String, Object>> endpoints = (List<Map<String, Object>>) spec.get("endpoints");
    for (Map<String, Object> endpoint : endpoints) {
      if (config.interval != null) {
        endpoint.put("interval", config.interval);
      }
      if (config.scrapeTimeout != null) {
        endpoint.put("scrapeTimeout", config.scrapeTimeout);
      }
      if (config.honorLabels != null) {
        endpoint.put("honorLabels", config.honorLabels);
      }
      if (config.relabelings != null) {
        endpoint.put(
            "relabelings",
            config.relabelings.stream()
                .map(r -> Serialization.jsonMapper().convertValue(r, Map.class))
                .toList());
      }
    }
  }
}
