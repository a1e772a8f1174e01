package io.gpuoperator.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.function.Supplier;

/**
 * The object a patch is sent to, by name only. fabric8's {@code withName(n).patch(context, String)}
 * first GETs the object it patches, only to learn the name and namespace it already has: one read
 * per write, which doubles the requests of every kubelet heartbeat, pod status and label patch.
 * {@code resource(PatchTarget.of(Node::new, null, n)).patch(context, body)} sends the patch alone
 * (the patch carries no resourceVersion either way).
 */
public final class PatchTarget {
  private PatchTarget() {}

  /** An empty object of {@code kind} named {@code name} in {@code namespace} (null: cluster). */
  public static <T extends HasMetadata> T of(Supplier<T> kind, String namespace, String name) {
    T target = kind.get();
    target.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    return target;
  }
}
