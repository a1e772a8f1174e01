package io.gpuoperator.operator.upgrade;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node changes that both the upgrade's and the remediation's steps collect for their one node
 * patch: annotations to set or remove, and the cordon. Each step's builder adds what only it has
 * (the upgrade's labels and failure; the remediation's taint and Event).
 *
 * @param <B> the concrete builder, returned by each call so that calls chain
 */
public abstract class NodeChangesBuilder<B extends NodeChangesBuilder<B>> {
  /** Annotations to set; a null value removes one. */
  protected final Map<String, String> annotations = new LinkedHashMap<>();

  /** Cordon (true), uncordon (false), or leave (null). */
  protected Boolean unschedulable;

  protected abstract B self();

  public B annotate(String key, String value) {
    annotations.put(key, value);
    return self();
  }

  public B remove(String... keys) {
    for (String k : keys) {
      annotations.put(k, null);
    }
    return self();
  }

  public B unschedulable(boolean value) {
    unschedulable = value;
    return self();
  }
}
