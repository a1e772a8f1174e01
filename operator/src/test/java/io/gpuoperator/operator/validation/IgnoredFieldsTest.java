package io.gpuoperator.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.v1.EnabledSpec;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.plan.PolicyFile;
import org.junit.jupiter.api.Test;

class IgnoredFieldsTest {
  @Test
  void onlyFieldsSetToSomethingTheOriginalWouldActOnAreReported() {
    assertThat(IgnoredFields.of(Policies.minimal())).isEmpty();

    // The chart's values: autoUpgrade true (driver upgrades are automated), sandbox off, psa off.
    var sample = Policies.sample();
    assertThat(IgnoredFields.of(sample)).isEmpty();
    sample.getSpec().driver.useNvidiaDriverCRD = true;
    assertThat(IgnoredFields.of(sample)).isEmpty();

    sample.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    sample.getSpec().sandboxWorkloads.enabled = true;
    sample.getSpec().psa = new EnabledSpec();
    sample.getSpec().psa.enabled = true;
    // The sandbox operands are deployed (psa: the operator labels its namespace), except the vGPU
    // device manager without a ConfigMap of layouts: the sample enables it without one, as the
    // original's chart.
    assertThat(IgnoredFields.of(sample))
        .extracting(Violation::path)
        .containsExactly("spec.vgpuDeviceManager.config.name");
    assertThat(IgnoredFields.of(sample).get(0).reason())
        .startsWith("accepted but ignored: the vGPU device manager is not deployed without");
    sample.getSpec().vgpuDeviceManager.config.name = "default-vgpu-devices-config";
    assertThat(IgnoredFields.of(sample)).hasSize(1);
    sample.getSpec().vgpuDeviceManager.config.name = "my-vgpu-layouts";
    assertThat(IgnoredFields.of(sample)).isEmpty();
    sample.getSpec().vgpuDeviceManager.config.name = "";
    sample.getSpec().vgpuDeviceManager.enabled = false;
    assertThat(IgnoredFields.of(sample)).isEmpty();
    sample.getSpec().vgpuDeviceManager.enabled = true;
    sample.getSpec().sandboxWorkloads.enabled = false;
    assertThat(IgnoredFields.of(sample)).isEmpty();
  }

  /** The remediation controller acts on the section, so enabling it is not reported. */
  @Test
  void anEnabledRemediationSectionIsActedOn() {
    var p = Policies.minimal();
    p.getSpec().remediation = new RemediationSpec();
    p.getSpec().remediation.enabled = true;
    p.getSpec().remediation.dryRun = true;
    assertThat(IgnoredFields.of(p)).isEmpty();
  }

  /** The chart's list of values it accepts but does not support joins the fields. */
  @Test
  void theChartsUnsupportedValuesAreReportedWithTheFields() {
    var policy = Policies.sample();
    policy
        .getMetadata()
        .setAnnotations(
            java.util.Map.of(
                IgnoredFields.UNSUPPORTED_VALUES,
                "operator.cleanupCRD: the CRDs stay\nnfd.enabled: NFD is not" + " deployed"));
    assertThat(IgnoredFields.of(policy))
        .extracting(Violation::toString)
        .containsExactly(
            "values.operator.cleanupCRD: not supported: the CRDs stay",
            "values.nfd.enabled: not supported: NFD is not deployed");
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
