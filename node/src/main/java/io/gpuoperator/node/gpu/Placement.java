package io.gpuoperator.node.gpu;

/**
 * Where a GPU instance sits on the GPU: a run of memory slices.
 *
 * @param start first memory slice
 * @param size number of memory slices
 */
public record Placement(int start, int size) {
  /** True when the two placements share a memory slice. */
  public boolean overlaps(Placement other) {
    return start < other.start + other.size && other.start < start + size;
  }

  @Override
  public String toString() {
    return start + ":" + size;
  }
}
