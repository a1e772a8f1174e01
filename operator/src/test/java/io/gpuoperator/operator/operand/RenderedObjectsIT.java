package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every object of every golden case is accepted by a real Kubernetes API server (server-side dry
 * run: validation and admission run, nothing is stored). ServiceMonitors are skipped: their CRD is
 * not installed on the shared control plane.
 */
@ExtendWith(ControlPlaneExtension.class)
class RenderedObjectsIT {

  @Test
  void everyRenderedObjectPassesApiServerValidation(KubernetesClient client) {
    String ns = ControlPlaneExtension.newNamespace(client, "rendered");
    List<String> rejected = new ArrayList<>();
    int checked = 0;
    try {
      for (GoldenTest.Case c : GoldenTest.CASES) {
        // The golden case's own configuration (with or without our agents), in this namespace.
        var config = c.config().withNamespace(ns);
        List<RenderedOperand> rendered =
            new ArrayList<>(Operands.renderAll(c.policy(), c.facts(), config));
        // And node-agents mode's DaemonSet and the objects it changes (exporter Service, DRA
        // admission policy).
        for (RenderedOperand op :
            Operands.renderAll(c.policy(), c.facts(), config.withNodeAgents(true))) {
          if (op.name().equals(OperandNames.NODE_AGENTS)) {
            rendered.add(op);
          }
        }
        for (RenderedOperand op : rendered) {
          for (HasMetadata o : op.objects()) {
            if (o instanceof GenericKubernetesResource) {
              continue;
            }
            try {
              client.resource(o).dryRun().create();
              checked++;
            } catch (KubernetesClientException e) {
              // Cluster-scoped objects may exist from other tests; only validation errors count.
              if (e.getCode() != 409) {
                rejected.add(
                    c.name()
                        + " "
                        + o.getKind()
                        + "/"
                        + o.getMetadata().getName()
                        + ": "
                        + e.getMessage());
              } else {
                checked++;
              }
            }
          }
        }
      }
    } finally {
      client.namespaces().withName(ns).delete();
    }
    assertThat(rejected).isEmpty();
    assertThat(checked).isGreaterThan(200);
  }
}
