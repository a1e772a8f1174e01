package io.gpuoperator.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.plan.PolicyFile;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ClusterPolicy CRD on a real kube-apiserver (v1.36) and kubectl of the same version: {@code
 * kubectl explain} documents the fields, a typo such as {@code devicePlugin: {enable: false}} is
 * refused (kubectl's default strict validation) or pruned with a warning, naming it either way, the
 * list shows an Age column, and every CEL rule rejects what the operator's own check ({@link
 * PolicyValidator}, used offline by {@code plan}) rejects, at the same field.
 */
@ExtendWith(ControlPlaneExtension.class)
class StrictCrdIT {
  private static ControlPlane cp;
  private static KubernetesClient admin;
  @TempDir Path dir;

  @BeforeAll
  static void install(ControlPlane controlPlane) {
    cp = controlPlane;
    admin = cp.client();
    Crds.apply(admin);
    // Established is not yet served: kubectl needs the resource in discovery and its schema in
    // the published OpenAPI, which follow a moment later on a loaded machine.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> run("explain", "clusterpolicy.spec.devicePlugin").exit() == 0);
  }

  @AfterEach
  void cleanUp() {
    admin.resources(ClusterPolicy.class).withName("strict").delete();
  }

  @Test
  void explainShowsDescriptionsAndNoAccessorProperty() throws Exception {
    // The API server publishes a new CRD's schema a moment after it is established.
    String[] explained = new String[1];
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(60))
        .untilAsserted(
            () -> explained[0] = kubectl(0, "explain", "clusterpolicy.spec.devicePlugin"));
    String out = explained[0];
    assertThat(out)
        .contains("The device plugin: advertises nvidia.com/gpu")
        .contains("enabled\t<boolean>")
        .contains("Deploy this component")
        .contains("config\t<Object>")
        .doesNotContain("getAdditionalProperties")
        .doesNotContainPattern("\\b(get|set|is)[A-Z]\\w*\\t<");
  }

  @Test
  void aTypoIsRefusedOrPrunedWithAWarningNamingTheFieldAndTheListShowsAge() throws Exception {
    Path file = dir.resolve("typo.yaml");
    Files.writeString(
        file,
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: strict\n"
            + "spec:\n  devicePlugin:\n    enable: false\n");
    // kubectl validates strictly by default: the API server refuses, naming the field ...
    String refused = kubectl(1, "apply", "-f", file.toString());
    assertThat(refused).contains("unknown field \"spec.devicePlugin.enable\"");
    assertThat(admin.resources(ClusterPolicy.class).withName("strict").get()).isNull();
    // ... and with --validate=warn it prunes the field and warns, naming it.
    String out = kubectl(0, "apply", "--validate=warn", "-f", file.toString());
    assertThat(out).contains("unknown field \"spec.devicePlugin.enable\"");
    ClusterPolicy stored = admin.resources(ClusterPolicy.class).withName("strict").get();
    assertThat(Serialization.asJson(stored.getSpec())).doesNotContain("enable\"");
    // plan reports the same field offline.
    PolicyFile offline = PolicyFile.parse(Files.readString(file), file.toString());
    assertThat(offline.warnings())
        .extracting(Violation::path)
        .containsExactly("spec.devicePlugin.enable");

    assertThat(kubectl(0, "get", "clusterpolicy", "strict").lines().findFirst().orElse(""))
        .containsPattern("NAME\\s+AGE\\s+STATUS");
  }

  static Stream<Arguments> crossFieldRules() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(
        rule(
            "spec.cdi.nriPluginEnabled",
            p -> {
              p.getSpec().cdi.nriPluginEnabled = true;
              p.getSpec().cdi.enabled = false;
            }));
    cases.add(
        rule(
            "spec.cdi.nriPluginEnabled",
            p -> {
              p.getSpec().cdi.nriPluginEnabled = true;
              p.getSpec().toolkit.enabled = false;
            }));
    cases.add(
        rule(
            "spec.driver.version",
            p -> {
              p.getSpec().driver.usePrecompiled = true;
              p.getSpec().driver.version = "sha256:0123abcd";
            }));
    cases.add(
        rule(
            "spec.driver.usePrecompiled",
            p -> {
              p.getSpec().driver.usePrecompiled = true;
              p.getSpec().driver.useNvidiaDriverCRD = true;
            }));
    cases.add(
        rule(
            "spec.driver.useNvidiaDriverCRD",
            p -> {
              p.getSpec().driver.useNvidiaDriverCRD = true;
              p.getSpec().driver.enabled = false;
            }));
    cases.add(
        rule(
            "spec.gds.enabled",
            p -> {
              p.getSpec().driver.usePrecompiled = true;
              p.getSpec().gds.enabled = true;
            }));
    cases.add(
        rule(
            "spec.gdrcopy.enabled",
            p -> {
              p.getSpec().driver.usePrecompiled = true;
              p.getSpec().gdrcopy.enabled = true;
            }));
    return cases.stream();
  }

  private static Arguments rule(String path, Consumer<ClusterPolicy> edit) {
    return Arguments.of(path, edit);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crossFieldRules")
  void theApiServerAndTheOperatorRejectTheSameField(String path, Consumer<ClusterPolicy> edit) {
    ClusterPolicy policy = Policies.sample();
    policy.getMetadata().setName("strict");
    edit.accept(policy);

    assertThat(PolicyValidator.validate(policy)).extracting(Violation::path).contains(path);
    GenericKubernetesResource raw =
        Serialization.unmarshal(Serialization.asJson(policy), GenericKubernetesResource.class);
    assertThatThrownBy(() -> admin.resource(raw).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(path);
  }

  @Test
  void theRulesAcceptTheSampleAndItsEmptyStrings() {
    ClusterPolicy policy = Policies.sample();
    policy.getMetadata().setName("strict");
    assertThat(PolicyValidator.validate(policy)).isEmpty();
    admin.resource(policy).create();
  }

  /**
   * The remediation section is stored as written (nothing pruned, both kinds of int-or-string), off
   * by the schema's default when not enabled, and a negative cool-down is refused.
   */
  @Test
  void theRemediationSectionIsKeptWithItsDefaultsAndLimits() {
    ClusterPolicy policy = Policies.sample();
    policy.getMetadata().setName("strict");
    policy.getSpec().remediation = new io.gpuoperator.api.v1.RemediationSpec();
    policy.getSpec().remediation.dryRun = true;
    policy.getSpec().remediation.maxConcurrent =
        new io.fabric8.kubernetes.api.model.IntOrString("10%");
    policy.getSpec().remediation.maxFaultyNodes =
        new io.fabric8.kubernetes.api.model.IntOrString(3);
    policy.getSpec().remediation.coolDownSeconds = 60;
    admin.resource(policy).create();
    var stored =
        admin.resources(ClusterPolicy.class).withName("strict").get().getSpec().remediation;
    assertThat(stored.enabled).as("off unless enabled").isFalse();
    assertThat(stored.dryRun).isTrue();
    assertThat(stored.maxConcurrent.getStrVal()).isEqualTo("10%");
    assertThat(stored.maxFaultyNodes.getIntVal()).isEqualTo(3);
    assertThat(stored.coolDownSeconds).isEqualTo(60);
    admin.resources(ClusterPolicy.class).withName("strict").delete();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.resources(ClusterPolicy.class).withName("strict").get() == null);

    policy.getMetadata().setResourceVersion(null);
    policy.getSpec().remediation.coolDownSeconds = -1;
    assertThatThrownBy(() -> admin.resource(policy).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.remediation.coolDownSeconds");
  }

  private static String kubectl(int expectedExit, String... args)
      throws IOException, InterruptedException {
    Result r = run(args);
    assertThat(r.exit()).as(r.out()).isEqualTo(expectedExit);
    return r.out();
  }

  private record Result(int exit, String out) {}

  private static Result run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(cp.kubectl().toString());
    command.add("--kubeconfig=" + cp.kubeconfig());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out);
  }
}
