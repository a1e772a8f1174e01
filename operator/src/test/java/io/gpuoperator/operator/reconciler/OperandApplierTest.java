package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OperandApplierTest {
  static final OperatorConfig CONFIG = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", "gpu"));

  static ClusterPolicy policy() {
    ClusterPolicy p = ItCluster.samplePolicy("cluster-policy");
    p.getMetadata().setUid("uid-1");
    p.getSpec().dcgm.enabled = true;
    p.getSpec().nodeStatusExporter.enabled = true;
    p.getSpec().dcgmExporter.serviceMonitor.enabled = true;
    return p;
  }

  @Test
  void everyKindAnOperandRendersIsOneTheApplierCanFindAgain() {
    ClusterFacts facts = new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04");
    List<RenderedOperand> rendered = Operands.renderAll(policy(), facts, CONFIG);
    var known =
        ManagedObjects.KINDS.stream()
            .map(k -> k.apiVersion() + "/" + k.kind())
            .collect(Collectors.toSet());
    var kinds =
        rendered.stream()
            .flatMap(r -> r.objects().stream())
            .map(o -> o.getApiVersion() + "/" + o.getKind())
            .collect(Collectors.toSet());
    assertThat(kinds)
        .isNotEmpty()
        .contains("apps/v1/DaemonSet", "monitoring.coreos.com/v1/ServiceMonitor");
    assertThat(known).containsAll(kinds);
  }

  @Test
  void preparedObjectsAreOwnedLabelledAndHashedStably() {
    ClusterPolicy owner = policy();
    OperandApplier applier = new OperandApplier(null, "gpu", null);
    HasMetadata ds =
        Operands.renderAll(owner, ClusterFacts.offline(2, "ubuntu22.04"), CONFIG).stream()
            .filter(r -> r.name().equals("device-plugin"))
            .flatMap(r -> r.objects().stream())
            .filter(o -> o.getKind().equals("DaemonSet"))
            .findFirst()
            .orElseThrow();
    HasMetadata a = applier.prepare(owner, ds);
    assertThat(a.getMetadata().getNamespace()).isEqualTo("gpu");
    assertThat(a.getMetadata().getLabels())
        .containsEntry(ManagedObjects.OPERAND_LABEL, "device-plugin");
    assertThat(a.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getKind()).isEqualTo("ClusterPolicy");
              assertThat(r.getUid()).isEqualTo("uid-1");
              assertThat(r.getController()).isTrue();
            });
    // The hash is the renderer's, untouched by the owner: plan compares the same value offline.
    assertThat(ManagedObjects.recordedHash(a))
        .isEqualTo(ManagedObjects.recordedHash(ds))
        .isEqualTo(ManagedObjects.hash(a));
    assertThat(OperandApplier.needsWrite(a, null)).isTrue();
    assertThat(OperandApplier.needsWrite(a, applier.prepare(owner, ds))).isFalse();

    // A different owner (a new policy with the same name): same content, but written again so
    // that the new policy owns it.
    ClusterPolicy other = policy();
    other.getMetadata().setUid("uid-2");
    assertThat(OperandApplier.needsWrite(applier.prepare(other, ds), a)).isTrue();

    // Changed content: a different hash.
    HasMetadata changed = io.fabric8.kubernetes.client.utils.Serialization.clone(ds);
    changed.getMetadata().getLabels().put("extra", "1");
    ManagedObjects.stamp(changed, "device-plugin", "gpu");
    assertThat(OperandApplier.needsWrite(applier.prepare(owner, changed), a)).isTrue();
  }
}
