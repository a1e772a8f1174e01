package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Identifies one applied object (namespace null for cluster-scoped kinds). */
public record ObjectKey(String apiVersion, String kind, String namespace, String name) {
  /** The key of an object. */
  public static ObjectKey of(HasMetadata o) {
    return new ObjectKey(
        o.getApiVersion(), o.getKind(), o.getMetadata().getNamespace(), o.getMetadata().getName());
  }

  @Override
  public String toString() {
    return kind + " " + (namespace == null ? "" : namespace + "/") + name;
  }
}
