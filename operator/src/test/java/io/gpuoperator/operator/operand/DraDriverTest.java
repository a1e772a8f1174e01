package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The DRA driver operand beyond its golden files: what it refuses, and that its kinds exist only
 * where the server serves them (a server without DRA must still reconcile everything else).
 */
class DraDriverTest {
  private static ClusterPolicy dra(String extra) {
    return Policies.withSpec(
        "  devicePlugin: {enabled: false}\n" + "  draDriver: {enabled: true" + extra + "}\n");
  }

  @Test
  void anotherImageIsRefusedNamingTheField() {
    ClusterPolicy p =
        dra(", repository: nvcr.io/nvidia, image: k8s-dra-driver-gpu, version: v25.8.0");
    assertThatThrownBy(() -> Operands.renderAll(p, Policies.facts(), Policies.config()))
        .isInstanceOf(PolicyValidationException.class)
        .satisfies(
            e -> {
              Violation v = ((PolicyValidationException) e).violations().get(0);
              assertThat(v.path()).isEqualTo("spec.draDriver.image");
              assertThat(v.reason())
                  .contains("nvcr.io/nvidia/k8s-dra-driver-gpu:v25.8.0")
                  .contains("only for its own agent (gpu-operator dra-plugin)");
            });
    // A mirror of our image is ours.
    ClusterPolicy mirror =
        dra(", repository: registry.local/gpu-operator-java, image: gpu-operator, version: v1");
    assertThat(Operands.renderAll(mirror, Policies.facts(), Policies.config()))
        .filteredOn(r -> r.name().equals(OperandNames.DRA_DRIVER))
        .singleElement()
        .satisfies(r -> assertThat(r.rendering().isAgent()).isTrue());
  }

  @Test
  void aServerWithoutDraIsRefusedNamingTheField() {
    var facts = Policies.facts().withResourceApi(null);
    assertThatThrownBy(() -> Operands.renderAll(dra(""), facts, Policies.config()))
        .isInstanceOf(PolicyValidationException.class)
        .satisfies(
            e -> {
              Violation v = ((PolicyValidationException) e).violations().get(0);
              assertThat(v.path()).isEqualTo("spec.draDriver.enabled");
              assertThat(v.reason()).contains("needs Kubernetes 1.32 or newer");
            });
    // Without the DRA driver the same server renders as ever.
    assertThat(Operands.renderAll(Policies.minimal(), facts, Policies.config())).isNotEmpty();
  }

  @Test
  void draKindsArePresentOnlyWhereServed() {
    Set<String> none = ManagedObjects.served(Set.of(), null);
    Set<String> beta = ManagedObjects.served(Set.of(), ResourceApiVersion.V1BETA1);
    String vap = "admissionregistration.k8s.io/v1";
    assertThat(ManagedObjects.present("resource.k8s.io/v1", "DeviceClass", none)).isFalse();
    assertThat(ManagedObjects.present(vap, "ValidatingAdmissionPolicy", none)).isFalse();
    assertThat(ManagedObjects.present("resource.k8s.io/v1beta1", "DeviceClass", beta)).isTrue();
    assertThat(ManagedObjects.present("resource.k8s.io/v1", "DeviceClass", beta)).isFalse();
    assertThat(ManagedObjects.present(vap, "ValidatingAdmissionPolicyBinding", beta)).isTrue();
    // Built-in kinds and the monitoring kinds keep their rules.
    assertThat(ManagedObjects.present("apps/v1", "DaemonSet", none)).isTrue();
    assertThat(ManagedObjects.present("monitoring.coreos.com/v1", "ServiceMonitor", none))
        .isFalse();
    assertThat(
            ManagedObjects.present(
                "monitoring.coreos.com/v1",
                "ServiceMonitor",
                ManagedObjects.served(Set.of(ManagedObjects.SERVICE_MONITOR), null)))
        .isTrue();
  }
}
