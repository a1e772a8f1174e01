package io.gpuoperator.node.gpu;

/**
 * The MIG mode of a GPU: what is active now and what becomes active after the next GPU reset.
 *
 * @param current enabled now
 * @param pending enabled after the next reset (equals {@code current} when nothing is pending)
 */
public record MigMode(boolean current, boolean pending) {
  /** True when a mode change waits for a GPU reset. */
  public boolean resetPending() {
    return current != pending;
  }
}
