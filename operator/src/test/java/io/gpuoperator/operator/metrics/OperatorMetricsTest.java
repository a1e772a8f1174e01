package io.gpuoperator.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
  static String scrape(OperatorMetrics m) throws Exception {
    var out = new ByteArrayOutputStream();
    new PrometheusTextFormatWriter(false).write(out, m.registry().scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void exposesTheOriginalsMetricNamesWithTheJvmsAndJosdks() throws Exception {
    OperatorMetrics m = new OperatorMetrics();
    m.reconciled(OperatorMetrics.STATUS_SUCCESS, 3, true);
    m.failed();
    m.josdk().reconcileCustomResource(null, null, Map.of("controller.name", "clusterpolicy"));
    String text = scrape(m);
    assertThat(text)
        .contains("gpu_operator_reconciliation_total 2.0")
        .contains("gpu_operator_reconciliation_failed_total 1.0")
        .contains("\ngpu_operator_gpu_nodes_total 3.0\n")
        .contains("gpu_operator_reconciliation_status -2.0")
        .contains("gpu_operator_reconciliation_has_nfd_labels 1.0")
        .containsPattern("gpu_operator_reconciliation_last_success_ts_seconds \\d\\.\\d+E9")
        .contains("jvm_memory_used_bytes{area=\"heap\"}")
        .contains("operator_sdk_reconciliations_started_total{controller=\"clusterpolicy\"} 1.0");
  }

  @Test
  void onlyAReadyPassIsASuccessAndANotReadyPassCountsAsFailed() throws Exception {
    OperatorMetrics m = new OperatorMetrics();
    assertThat(scrape(m)).contains("gpu_operator_reconciliation_status -1.0");

    m.reconciled(OperatorMetrics.STATUS_NOT_READY, 2, true);
    assertThat(m.lastSuccessSeconds()).isZero();
    assertThat(m.failures()).isOne();
    assertThat(scrape(m)).contains("gpu_operator_reconciliation_status 0.0");

    m.reconciled(OperatorMetrics.STATUS_SUCCESS, 2, true);
    double ready = m.lastSuccessSeconds();
    assertThat(ready).isPositive();
    assertThat(m.failures()).isOne();

    m.reconciled(OperatorMetrics.STATUS_NOT_READY, 1, false);
    m.failed();
    assertThat(m.lastSuccessSeconds()).isEqualTo(ready);
    assertThat(m.failures()).isEqualTo(3);
    assertThat(m.reconciliations()).isEqualTo(4);
    // The node count follows the cluster down as well as up.
    assertThat(scrape(m)).contains("\ngpu_operator_gpu_nodes_total 1.0\n");
  }
}
