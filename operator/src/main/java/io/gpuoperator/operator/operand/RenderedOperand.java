package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;

/**
 * One operand as the policy wants it: its objects when enabled, or nothing (and {@code enabled}
 * false) when the reconciler must delete what exists.
 */
public record RenderedOperand(String name, boolean enabled, List<HasMetadata> objects) {}
