package io.gpuoperator.operator.metrics;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;

/**
 * JOSDK's reconcile metrics in Prometheus form, per controller ({@code clusterpolicy}, {@code
 * nodelabels}), named after JOSDK's own Micrometer metrics: events received, reconciles started,
 * succeeded, failed (by exception) and retried, reconciles running, and how long each took.
 */
final class ReconcileMetrics implements Metrics {
  private final Counter events;
  private final Counter started;
  private final Counter succeeded;
  private final Counter failed;
  private final Counter retries;
  private final Gauge running;
  private final Histogram duration;

  ReconcileMetrics(PrometheusRegistry registry) {
    events =
        Counter.builder()
            .name("operator_sdk_events_received_total")
            .help("Events received by a controller (resource changes, timers)")
            .labelNames("controller", "event")
            .register(registry);
    started =
        Counter.builder()
            .name("operator_sdk_reconciliations_started_total")
            .help("Reconciles started, retries included")
            .labelNames("controller")
            .register(registry);
    succeeded =
        Counter.builder()
            .name("operator_sdk_reconciliations_success_total")
            .help("Reconciles that returned normally")
            .labelNames("controller")
            .register(registry);
    failed =
        Counter.builder()
            .name("operator_sdk_reconciliations_failed_total")
            .help("Reconciles that threw, by exception class (they are retried)")
            .labelNames("controller", "exception")
            .register(registry);
    retries =
        Counter.builder()
            .name("operator_sdk_reconciliations_retries_total")
            .help("Reconciles started as a retry of a failed one")
            .labelNames("controller")
            .register(registry);
    running =
        Gauge.builder()
            .name("operator_sdk_reconciliations_executions")
            .help("Reconciles running now")
            .labelNames("controller")
            .register(registry);
    duration =
        Histogram.builder()
            .name("operator_sdk_controllers_execution_seconds")
            .help("Time a controller took for one reconcile or cleanup")
            .labelNames("controller", "execution", "result")
            .register(registry);
  }

  private static String controller(Map<String, Object> metadata) {
    Object name = metadata == null ? null : metadata.get(Constants.CONTROLLER_NAME);
    return name == null ? "unknown" : name.toString();
  }

  @Override
  public void receivedEvent(Event event, Map<String, Object> metadata) {
    events.labelValues(controller(metadata), event.getClass().getSimpleName()).inc();
  }

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retry, Map<String, Object> metadata) {
    started.labelValues(controller(metadata)).inc();
    if (retry != null && retry.getAttemptCount() > 0) {
      retries.labelValues(controller(metadata)).inc();
    }
  }

  @Override
  public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
    succeeded.labelValues(controller(metadata)).inc();
  }

  @Override
  public void failedReconciliation(
      HasMetadata resource, Exception exception, Map<String, Object> metadata) {
    Throwable cause = exception.getCause() == null ? exception : exception.getCause();
    failed.labelValues(controller(metadata), cause.getClass().getSimpleName()).inc();
  }

  @Override
  public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
    running.labelValues(controller(metadata)).inc();
  }

  @Override
  public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
    running.labelValues(controller(metadata)).dec();
  }

  @Override
  public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
    long start = System.nanoTime();
    String result = "failure";
    try {
      T value = execution.execute();
      result = "success";
      return value;
    } finally {
      duration
          .labelValues(execution.controllerName(), execution.name(), result)
          .observe((System.nanoTime() - start) / 1e9);
    }
  }
}
