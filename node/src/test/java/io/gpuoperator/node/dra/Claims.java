package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;

/** ResourceClaims with an allocation, as the scheduler leaves them, for unit tests. */
final class Claims {
  private Claims() {}

  /**
   * A v1 claim with results {@code request:device} from pool {@code node-a} and the config YAML (a
   * list of {@code status.allocation.devices.config} entries, or empty).
   */
  static GenericKubernetesResource allocated(String uid, String configYaml, String... results) {
    return allocated(DraNames.DRIVER, uid, configYaml, results);
  }

  /** The same for another driver's results. */
  static GenericKubernetesResource allocated(
      String driver, String uid, String configYaml, String... results) {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n");
    y.append("metadata: {name: claim-").append(uid).append(", namespace: ns, uid: ").append(uid);
    y.append("}\nstatus:\n  allocation:\n    devices:\n      results:\n");
    for (String r : results) {
      String[] p = r.split(":");
      y.append("      - {request: ")
          .append(p[0])
          .append(", driver: ")
          .append(driver)
          .append(", pool: node-a, device: ")
          .append(p[1])
          .append("}\n");
    }
    if (!configYaml.isBlank()) {
      y.append("      config:\n");
      for (String line : configYaml.split("\n")) {
        y.append("      ").append(line).append('\n');
      }
    }
    return Serialization.unmarshal(y.toString(), GenericKubernetesResource.class);
  }

  /**
   * One config entry of the claim for this driver: opaque parameters of {@code kind} ({@code
   * GpuConfig} or {@code MigDeviceConfig}) with this {@code sharing} (YAML flow style), for every
   * request.
   */
  static String config(String kind, String sharing) {
    return "- source: FromClaim\n  opaque:\n    driver: "
        + DraNames.DRIVER
        + "\n    parameters: {apiVersion: resource.nvidia.com/v1beta1, kind: "
        + kind
        + ", sharing: "
        + sharing
        + "}\n";
  }

  /** A {@code GpuConfig} entry with this {@code sharing}: see {@link #config}. */
  static String gpuConfig(String sharing) {
    return config("GpuConfig", sharing);
  }

  static ClaimAllocation allocation(String uid, String configYaml, String... results) {
    return ClaimAllocation.of(allocated(uid, configYaml, results), DraNames.DRIVER, "node-a");
  }
}
