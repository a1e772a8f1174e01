package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.operand.Operands;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the keys of the ConfigMaps the policy has the driver (and the vGPU manager) mount file by
 * file, and of the vGPU device manager's layouts (only those, and only when the policy names one;
 * {@code Operands.driverConfigMaps}): the original mounts each key, so rendering needs them.
 */
public final class ConfigMapKeys {
  private ConfigMapKeys() {}

  /** Keys by ConfigMap name; a ConfigMap that does not exist is left out. */
  public static Map<String, List<String>> read(
      KubernetesClient client, String namespace, ClusterPolicy policy) {
    Map<String, List<String>> out = new TreeMap<>();
    for (String name : Operands.driverConfigMaps(policy)) {
      ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
      if (cm != null) {
        TreeSet<String> keys = new TreeSet<>();
        if (cm.getData() != null) {
          keys.addAll(cm.getData().keySet());
        }
        if (cm.getBinaryData() != null) {
          keys.addAll(cm.getBinaryData().keySet());
        }
        out.put(name, List.copyOf(keys));
      }
    }
    return out;
  }
}
