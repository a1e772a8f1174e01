package io.gpuoperator.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
  @Test
  void exposesTheOriginalsMetricNames() throws Exception {
    OperatorMetrics m = new OperatorMetrics();
    m.reconciled(OperatorMetrics.STATUS_SUCCESS, 3, true);
    m.failed();
    var out = new ByteArrayOutputStream();
    m.writeTo(out);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("gpu_operator_reconciliation_total 2.0")
        .contains("gpu_operator_reconciliation_failed_total 1.0")
        .contains("# TYPE gpu_operator_gpu_nodes_total gauge")
        .contains("gpu_operator_gpu_nodes_total 3.0")
        .contains("gpu_operator_reconciliation_status -2.0")
        .contains("gpu_operator_reconciliation_has_nfd_labels 1.0")
        .containsPattern("gpu_operator_reconciliation_last_success_ts_seconds \\d\\.\\d+E9");
  }
}
