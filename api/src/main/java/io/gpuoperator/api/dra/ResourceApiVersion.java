package io.gpuoperator.api.dra;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The version of Dynamic Resource Allocation's API group {@code resource.k8s.io} to talk to a
 * server with: the newest it serves. Structured parameters (ResourceSlices with devices, CEL
 * selectors) exist from {@code v1beta1} (Kubernetes 1.32); {@code v1beta2} (1.33) flattened the
 * device; {@code v1} (1.34) is GA and shaped like {@code v1beta2}. The operator and the DRA plugin
 * both choose through this, so they never disagree.
 */
public enum ResourceApiVersion {
  V1("v1"),
  V1BETA2("v1beta2"),
  V1BETA1("v1beta1");

  /** The API group. */
  public static final String GROUP = "resource.k8s.io";

  private final String version;

  ResourceApiVersion(String version) {
    this.version = version;
  }

  /** The version, e.g. {@code v1}. */
  public String version() {
    return version;
  }

  /** The {@code apiVersion} of objects, e.g. {@code resource.k8s.io/v1}. */
  public String apiVersion() {
    return GROUP + "/" + version;
  }

  /**
   * True when a device's attributes and capacity sit under {@code basic} ({@code v1beta1}), false
   * when they are the device's own fields.
   */
  public boolean basicDevices() {
    return this == V1BETA1;
  }

  /** The newest of ours among the versions a server serves; empty when it serves none of them. */
  public static Optional<ResourceApiVersion> choose(Collection<String> served) {
    for (ResourceApiVersion v : values()) {
      if (served.contains(v.version)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  /** Asks the server (discovery of {@code /apis/resource.k8s.io}). */
  public static Optional<ResourceApiVersion> discover(KubernetesClient client) {
    APIGroup group = client.getApiGroup(GROUP);
    Set<String> served = new HashSet<>();
    if (group != null && group.getVersions() != null) {
      for (GroupVersionForDiscovery v : group.getVersions()) {
        served.add(v.getVersion());
      }
    }
    return choose(served);
  }
}
