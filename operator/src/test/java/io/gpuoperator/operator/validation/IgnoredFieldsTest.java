package io.gpuoperator.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.v1.EnabledSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.plan.PolicyFile;
import org.junit.jupiter.api.Test;

class IgnoredFieldsTest {
  @Test
  void onlyFieldsSetToSomethingTheOriginalWouldActOnAreReported() {
    assertThat(IgnoredFields.of(Policies.minimal())).isEmpty();

    var sample = Policies.sample(); // the chart's values: autoUpgrade true, sandbox off, psa off
    assertThat(IgnoredFields.of(sample))
        .extracting(Violation::path)
        .containsExactly("spec.driver.upgradePolicy.autoUpgrade");

    sample.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    sample.getSpec().sandboxWorkloads.enabled = true;
    sample.getSpec().psa = new EnabledSpec();
    sample.getSpec().psa.enabled = true;
    sample.getSpec().driver.upgradePolicy.autoUpgrade = false;
    assertThat(IgnoredFields.of(sample))
        .extracting(Violation::path)
        .containsExactly("spec.sandboxWorkloads.enabled"); // psa: the operator labels its namespace
    assertThat(IgnoredFields.of(sample).get(0).reason())
        .startsWith("accepted but ignored: VM workloads");
  }

  @Test
  void planWarnsAboutIgnoredAndPrunedFieldsButTheyKeepThePolicyValid() {
    PolicyFile file =
        PolicyFile.parse(
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n"
                + "  devicePlugin: {enable: false}\n  psa: {enabled: true}\n",
            "policy.yaml");
    assertThat(file.valid()).isTrue();
    assertThat(file.warnings())
        .extracting(Violation::toString)
        .containsExactly("spec.devicePlugin.enable: unknown field: the API server drops it");
  }
}
