package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.PolicyValidator;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A policy's validation as the operator and {@code plan} run it: {@link PolicyValidator}'s
 * cross-field rules plus each deployed operand's own ({@link Operands#validate}).
 */
class PolicyValidationTest {

  private static List<String> paths(ClusterPolicy p) {
    return Operands.validate(p).stream().map(Violation::path).toList();
  }

  private static ClusterPolicy yaml(String spec) {
    return Policies.parse(
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n" + spec);
  }

  @Test
  void inlineMigConfigsAreCheckedAgainstTheGpusTablesBeforeAnyNodeIsTouched() {
    var p =
        yaml(
            """
              migManager:
                config:
                  default: training
                configs:
                  training:
                  - devices: all
                    mig-enabled: true
                    device-filter: ["0x233010DE"]
                    mig-devices: {"3g.40gb": 3}
                  inference:
                  - {devices: [0, 1], mig-enabled: true, mig-devices: {"1g.10gb": 7}}
            """);
    var v = Operands.validate(p);
    assertThat(v).extracting(Violation::path).containsExactly("spec.migManager.configs.training");
    assertThat(v.get(0).reason())
        .contains("3g.40gb ×3 exceeds its maximum of 2 per GPU on H100-SXM5-80GB");
    var malformed =
        Operands.validate(
            yaml(
                "  migManager:\n    configs:\n      x:\n      - {devices: some, mig-enabled: true}\n"));
    assertThat(malformed).extracting(Violation::path).containsExactly("spec.migManager.configs");
    assertThat(malformed.get(0).reason()).contains("expected all or a list of GPU indices");
    // A valid inline config may be the default layout and reaches the ConfigMap.
    var ok =
        yaml(
            "  migManager:\n    config:\n      default: inference\n    configs:\n      inference:\n"
                + "      - {devices: all, mig-enabled: true, mig-devices: {\"1g.10gb\": 7}}\n");
    assertThat(Operands.validate(ok)).isEmpty();
    String yaml = io.gpuoperator.operator.operand.MigConfigs.effective(ok.getSpec()).toYaml();
    assertThat(yaml).contains("  inference:\n    - devices: all\n").contains("  all-1g.10gb:");
  }

  @Test
  void documentationSampleAndMinimalPolicyAreValid() {
    assertThat(Operands.validate(Policies.sample())).isEmpty();
    assertThat(Operands.validate(Policies.minimal())).isEmpty();
  }

  @Test
  void nriPluginNeedsCdiAndToolkit() {
    var p =
        yaml(
            "  cdi:\n    enabled: false\n    nriPluginEnabled: true\n  toolkit:\n    enabled: false\n");
    var v = Operands.validate(p);
    assertThat(v).extracting(Violation::path).containsOnly("spec.cdi.nriPluginEnabled");
    assertThat(v).hasSize(2);
    assertThat(v.get(0).reason()).contains("spec.cdi.enabled");
    assertThat(v.get(1).reason()).contains("spec.toolkit.enabled");
    assertThat(paths(yaml("  cdi:\n    nriPluginEnabled: true\n"))).isEmpty();
  }

  @Test
  void whatTheApiServerRejectsInRenderedObjectsIsRejectedHere() {
    // tolerationSeconds only with NoExecute (the operator could not apply the DaemonSets).
    var p =
        yaml(
            "  daemonsets:\n    tolerations:\n    - key: a\n      operator: Exists\n"
                + "      effect: NoSchedule\n      tolerationSeconds: 30\n");
    assertThat(PolicyValidator.validate(p))
        .extracting(Violation::toString)
        .containsExactly(
            "spec.daemonsets.tolerations[0].effect: must be NoExecute when tolerationSeconds is"
                + " set, got \"NoSchedule\"");
    assertThat(paths(yaml("  daemonsets:\n    tolerations:\n    - key: 'bad key'\n")))
        .containsExactly("spec.daemonsets.tolerations[0].key");
    assertThat(paths(yaml("  daemonsets:\n    tolerations:\n    - operator: Equal\n")))
        .containsExactly("spec.daemonsets.tolerations[0].operator");
    // An unknown pull policy used to become IfNotPresent silently.
    assertThat(Operands.validate(yaml("  devicePlugin:\n    imagePullPolicy: Sometimes\n")))
        .extracting(Violation::toString)
        .containsExactly(
            "spec.devicePlugin.imagePullPolicy: Unsupported value: \"Sometimes\": supported"
                + " values: \"Always\", \"IfNotPresent\", \"Never\"");
  }

  @Test
  void theRemediationSectionsLimitsAreCheckedAndItIsOffUnlessEnabled() {
    var p =
        yaml(
            "  remediation:\n    enabled: true\n    dryRun: true\n    maxConcurrent: 10%\n"
                + "    maxFaultyNodes: 3\n    coolDownSeconds: 0\n");
    assertThat(Operands.validate(p)).isEmpty();
    assertThat(p.getSpec().remediation.dryRun).isTrue();
    assertThat(p.getSpec().remediation.maxConcurrent.getStrVal()).isEqualTo("10%");
    assertThat(p.getSpec().remediation.maxFaultyNodes.getIntVal()).isEqualTo(3);
    assertThat(
            PolicyValidator.validate(
                yaml("  remediation:\n    maxConcurrent: 0\n    maxFaultyNodes: 150%\n")))
        .extracting(Violation::toString)
        .containsExactly(
            "spec.remediation.maxConcurrent: must be 1 or more, got 0",
            "spec.remediation.maxFaultyNodes: must be a percentage between 1% and 100%, got 150%");
    assertThat(paths(yaml("  remediation:\n    maxFaultyNodes: some\n")))
        .containsExactly("spec.remediation.maxFaultyNodes");
    // The section without enabled is off (the CRD's default), as it is absent.
    assertThat(yaml("  remediation: {}\n").getSpec().remediation.enabled).isNotEqualTo(true);
  }

  @Test
  void precompiledDriverCannotTakeADigest() {
    var p =
        yaml(
            "  driver:\n    usePrecompiled: true\n    repository: nvcr.io/nvidia\n"
                + "    image: driver\n    version: sha256:0123abcd\n");
    assertThat(paths(p)).containsExactly("spec.driver.version");
    p.getSpec().driver.usePrecompiled = false;
    assertThat(paths(p)).isEmpty();
  }

  @Test
  void precompiledDriverHasNoGdsOrGdrcopy() {
    assertThat(
            paths(
                yaml(
                    "  driver:\n    usePrecompiled: true\n  gds:\n    enabled: true\n"
                        + "  gdrcopy:\n    enabled: false\n")))
        .containsExactly("spec.gds.enabled");
  }

  @Test
  void nvidiaDriverCrdConflicts() {
    assertThat(paths(yaml("  driver:\n    useNvidiaDriverCRD: true\n    usePrecompiled: true\n")))
        .containsExactly("spec.driver.usePrecompiled");
    assertThat(paths(yaml("  driver:\n    useNvidiaDriverCRD: true\n    enabled: false\n")))
        .containsExactly("spec.driver.useNvidiaDriverCRD");
  }

  @Test
  void halfSetImagesAreReportedPerMissingFieldOnlyForDeployedOperands() {
    var p =
        yaml(
            "  devicePlugin:\n    repository: r\n    image: i\n  dcgm:\n    enabled: false\n    image: x\n    version: v1\n");
    var v = Operands.validate(p);
    assertThat(v).extracting(Violation::path).containsExactly("spec.devicePlugin.version");
    assertThat(v.get(0).reason()).contains("repository and image");
    assertThat(paths(yaml("  validator:\n    version: v1\n")))
        .containsExactlyInAnyOrder("spec.validator.repository", "spec.validator.image");
    assertThat(paths(yaml("  driver:\n    manager:\n      image: x\n      version: y\n")))
        .containsExactly("spec.driver.manager.repository");
  }

  @Test
  void invalidValuesAreNamed() {
    var p =
        yaml(
            String.join(
                "\n",
                "  daemonsets:",
                "    rollingUpdate:",
                "      maxUnavailable: 0",
                "    priorityClassName: Not_Valid",
                "    labels:",
                "      'bad key!': x",
                "    tolerations:",
                "      - key: a",
                "        operator: Maybe",
                "  driver:",
                "    upgradePolicy:",
                "      maxUnavailable: lots",
                "  hostPaths:",
                "    rootFS: relative/dir",
                "  devicePlugin:",
                "    env:",
                "      - name: 'BAD NAME'",
                "        value: x",
                "    resources:",
                "      requests:",
                "        cpu: '2'",
                "      limits:",
                "        cpu: '1'",
                "  migManager:",
                "    config:",
                "      default: all-nonsense",
                "  dcgmExporter:",
                "    service:",
                "      type: Headless",
                ""));
    assertThat(paths(p))
        .containsExactlyInAnyOrder(
            "spec.daemonsets.rollingUpdate.maxUnavailable",
            "spec.daemonsets.priorityClassName",
            "spec.daemonsets.labels",
            "spec.daemonsets.tolerations[0].operator",
            "spec.driver.upgradePolicy.maxUnavailable",
            "spec.hostPaths.rootFS",
            "spec.devicePlugin.env[0].name",
            "spec.devicePlugin.resources.requests.cpu",
            "spec.migManager.config.default",
            "spec.dcgmExporter.service.type");
  }

  @Test
  void driverConfigReferencesMustBeNames() {
    assertThat(
            paths(
                yaml(
                    "  driver:\n    repoConfig:\n      configMapName: Local_Repos\n"
                        + "    certConfig:\n      name: ''\n"
                        + "    licensingConfig:\n      secretName: lic\n")))
        .containsExactly("spec.driver.repoConfig.configMapName");
  }

  @Test
  void nodeTaintKeyAndValueMustBeValid() {
    assertThat(paths(yaml("  nodeTaint:\n    key: 'has space'\n    value: 'a/b'\n")))
        .containsExactly("spec.nodeTaint.key", "spec.nodeTaint.value");
    assertThat(
            paths(
                yaml(
                    "  nodeTaint:\n    key: example.com/gpu\n    value: yes-1\n    effect: NoExecute\n")))
        .isEmpty();
  }

  @Test
  void percentagesAndDefaultMigLayoutsAreAccepted() {
    assertThat(
            paths(
                yaml(
                    "  daemonsets:\n    rollingUpdate:\n      maxUnavailable: 10%\n"
                        + "  migManager:\n    config:\n      default: all-3g.71gb\n")))
        .isEmpty();
    assertThat(MigManagerTransform.defaultMigConfigs())
        .contains("all-disabled", "all-balanced", "all-1g.10gb", "all-7g.141gb", "all-1g.5gb");
  }

  @Test
  void checkThrowsWithEveryViolation() {
    var p = yaml("  hostPaths:\n    rootFS: a\n    kubeletRootDir: b\n");
    assertThatThrownBy(() -> PolicyValidator.check(p))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("spec.hostPaths.rootFS: must be an absolute path")
        .hasMessageContaining("spec.hostPaths.kubeletRootDir");
  }
}
