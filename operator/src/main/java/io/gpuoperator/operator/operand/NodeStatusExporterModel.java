package io.gpuoperator.operator.operand;

import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * The node status exporter {@code nvidia-node-status-exporter}: our validator in metrics mode,
 * exposing per-node readiness metrics. Off unless enabled, as in the original.
 */
public final class NodeStatusExporterModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-node-status-exporter";

  public NodeStatusExporterModel() {
    super(OperandNames.NODE_STATUS_EXPORTER);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.nodeStatusExporter;
  }

  @Override
  protected boolean enabledByDefault() {
    return false;
  }

  @Override
  protected String path() {
    return "spec.nodeStatusExporter";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  @Override
  protected boolean usesRuntimeClass() {
    return true;
  }
}
