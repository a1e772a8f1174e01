package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * The operator's own metrics Service and, when the Prometheus Operator's CRD exists and {@code
 * operator.metrics.serviceMonitor.enabled} is not false, its ServiceMonitor.
 */
public final class OperatorMetricsTransform implements Transform {
  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    if (!ServiceMonitors.is(object)) {
      return true;
    }
    ServiceMonitorConfig config = config(ctx.spec());
    return ctx.facts().serviceMonitorCrd()
        && (config == null || !Boolean.FALSE.equals(config.enabled));
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
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
