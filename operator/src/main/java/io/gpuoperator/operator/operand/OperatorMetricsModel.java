package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;

/**
 * The operator's own metrics Service and, when the Prometheus Operator's CRD exists and {@code
 * operator.metrics.serviceMonitor.enabled} is not false, its ServiceMonitor.
 */
public final class OperatorMetricsModel extends ManifestOperandModel {
  public OperatorMetricsModel() {
    super(OperandNames.OPERATOR_METRICS);
  }

  @Override
  public boolean enabled(ClusterPolicy policy, ClusterFacts facts) {
    return true;
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return null;
  }

  @Override
  protected String path() {
    return "spec.operator.metrics";
  }

  @Override
  protected String mainContainer() {
    return null;
  }

  @Override
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    if (!ServiceMonitors.is(object)) {
      return true;
    }
    ServiceMonitorConfig config = config(ctx.spec());
    return ctx.facts().serviceMonitorCrd()
        && (config == null || !Boolean.FALSE.equals(config.enabled));
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (ServiceMonitors.is(object)) {
      ServiceMonitors.apply((GenericKubernetesResource) object, config(ctx.spec()));
    }
  }

  private static ServiceMonitorConfig config(ClusterPolicySpec spec) {
    return spec.operator == null || spec.operator.metrics == null
        ? null
        : spec.operator.metrics.serviceMonitor;
  }
}
