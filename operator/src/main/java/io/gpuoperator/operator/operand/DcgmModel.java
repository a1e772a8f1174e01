package io.gpuoperator.operator.operand;

import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/** The standalone DCGM host engine {@code nvidia-dcgm} (NVIDIA's image) and its Service. */
public final class DcgmModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-dcgm-ctr";

  public DcgmModel() {
    super(OperandNames.DCGM);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.dcgm;
  }

  @Override
  protected String path() {
    return "spec.dcgm";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  @Override
  protected boolean appendArgs() {
    return false;
  }

  @Override
  protected boolean usesRuntimeClass() {
    return true;
  }
}
