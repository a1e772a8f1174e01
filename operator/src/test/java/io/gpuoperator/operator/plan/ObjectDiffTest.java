package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectDiffTest {
  private static final KubernetesSerialization K = new KubernetesSerialization();

  private static List<RenderedOperand> rendered() {
    return Operands.renderAll(Policies.sample(), Policies.facts(), Policies.config());
  }

  /** Live copies of every rendered object, as the API server returns them (with defaults). */
  private static List<HasMetadata> live(List<RenderedOperand> ops) {
    List<HasMetadata> out = new ArrayList<>();
    for (var op : ops) {
      for (var o : op.objects()) {
        HasMetadata copy = K.clone(o);
        copy.getMetadata().setResourceVersion("7");
        copy.getMetadata().setUid("u");
        if (copy instanceof DaemonSet ds) {
          ds.getSpec().setRevisionHistoryLimit(10);
          ds.getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0)
              .setTerminationMessagePath("/dev/termination-log");
        }
        out.add(copy);
      }
    }
    return out;
  }

  @Test
  void offlineEverythingIsCreated() {
    var diff = ObjectDiff.diff(rendered(), List.of());
    assertThat(diff).isNotEmpty().allMatch(e -> e.action() == ObjectDiff.Action.CREATE);
  }

  @Test
  void liveObjectsWithTheSameHashAreUnchangedDespiteServerDefaults() {
    var ops = rendered();
    var diff = ObjectDiff.diff(ops, live(ops));
    assertThat(diff).allMatch(e -> e.action() == ObjectDiff.Action.UNCHANGED);
  }

  @Test
  void changedFieldsAreNamedAndStaleObjectsDeleted() {
    var ops = rendered();
    var live = live(ops);
    DaemonSet dp =
        live.stream()
            .filter(o -> o.getMetadata().getName().equals("nvidia-device-plugin-daemonset"))
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    var c = dp.getSpec().getTemplate().getSpec().getContainers().get(0);
    c.setImage("nvcr.io/nvidia/k8s-device-plugin:v0.16.0");
    c.getEnv().removeIf(e -> e.getName().equals("MIG_STRATEGY"));
    c.getEnv().add(new io.fabric8.kubernetes.api.model.EnvVar("OLD", "1", null));
    ManagedObjects.stamp(dp, "device-plugin", "gpu-operator");
    DaemonSet stale = K.clone(dp);
    stale.getMetadata().setName("nvidia-dcgm");
    stale.getMetadata().getLabels().put(Labels.APP, "nvidia-dcgm");
    live.add(stale);

    var diff = ObjectDiff.diff(ops, live);
    var update =
        diff.stream()
            .filter(e -> e.name().equals("nvidia-device-plugin-daemonset"))
            .findFirst()
            .orElseThrow();
    assertThat(update.action()).isEqualTo(ObjectDiff.Action.UPDATE);
    assertThat(update.operand()).isEqualTo("device-plugin");
    assertThat(update.changes())
        .contains(
            "spec.template.spec.containers[nvidia-device-plugin].image:"
                + " \"nvcr.io/nvidia/k8s-device-plugin:v0.16.0\" -> \"nvcr.io/nvidia/k8s-device-plugin:v0.17.1\"",
            "spec.template.spec.containers[nvidia-device-plugin].env[MIG_STRATEGY]: added",
            "spec.template.spec.containers[nvidia-device-plugin].env[OLD]: removed");
    var delete =
        diff.stream().filter(e -> e.name().equals("nvidia-dcgm")).findFirst().orElseThrow();
    assertThat(delete.action()).isEqualTo(ObjectDiff.Action.DELETE);
    assertThat(diff.stream().filter(e -> e.action() == ObjectDiff.Action.UPDATE)).hasSize(1);
  }

  @Test
  void liveObjectsWithoutTheOwnershipLabelAreNeverDeleted() {
    var foreign =
        new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
            .withNewMetadata()
            .withName("user-config")
            .withNamespace("gpu-operator")
            .endMetadata()
            .build();
    var diff = ObjectDiff.diff(rendered(), List.of(foreign));
    assertThat(diff).noneMatch(e -> e.name().equals("user-config"));
  }
}
