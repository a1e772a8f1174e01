package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every operand rendered for named policies, compared with YAML under {@code
 * src/test/resources/golden/<case>/<operand>.yaml}: both renderings of each operand (cases whose
 * images are NVIDIA's, and cases where our agents run). Regenerate after an intended change with
 * {@code mvn test -pl operator -am -Dtest=GoldenTest -Dgolden.update=true} and review the diff;
 * {@link OriginalContractTest} checks NVIDIA's renderings against the original's contract.
 */
class GoldenTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");
  private static final boolean UPDATE = Boolean.getBoolean("golden.update");

  /**
   * A named case: the policy file, the cluster facts, the operator's environment and whether the
   * binary has our agents (without them every operand runs NVIDIA's image).
   */
  record Case(String name, ClusterFacts facts, Map<String, String> env, boolean agents) {
    Case(String name, ClusterFacts facts, Map<String, String> env) {
      this(name, facts, env, true);
    }

    OperatorConfig config() {
      OperatorConfig c = OperatorConfig.fromEnv(env);
      return agents ? c.withAgents(Policies.agents()) : c;
    }

    ClusterPolicy policy() {
      if (name.equals("sample")) {
        return Policies.sample();
      }
      try {
        return Policies.parse(Files.readString(GOLDEN.resolve("cases/" + name + ".yaml")));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  static final List<Case> CASES =
      List.of(
          new Case("minimal", ClusterFacts.offline(2, "ubuntu22.04"), Map.of()),
          new Case(
              "sample",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04"),
              Map.of()),
          new Case(
              "precompiled-driver",
              ClusterFacts.offline(3, "ubuntu24.04")
                  .withKernelVersions(List.of("6.8.0-60-generic", "6.8.0-51-generic")),
              Map.of()),
          new Case("cdi-nri", ClusterFacts.offline(1, "ubuntu22.04"), Map.of()),
          new Case(
              "cdi-off", new ClusterFacts("v1.36.3", "crio", false, 1, true, "rhel9"), Map.of()),
          new Case(
              "driver-airgapped",
              new ClusterFacts("v1.36.3", "crio", false, 1, true, "rhel9")
                  .withConfigMapKeys(
                      Map.of(
                          "local-repos", List.of("local.repo"),
                          "registry-ca", List.of("ca.pem", "intermediate.pem"),
                          "modprobe-params", List.of("nvidia.conf"))),
              Map.of()),
          new Case("mig-mixed", ClusterFacts.offline(1, "ubuntu22.04"), Map.of()),
          new Case(
              "custom-images",
              ClusterFacts.offline(1, null),
              Map.of(
                  "OPERATOR_NAMESPACE", "nvidia-gpu-operator",
                  "DEVICE_PLUGIN_IMAGE", "registry.local/k8s/device-plugin:v2",
                  "DRIVER_MANAGER_IMAGE", "registry.local/k8s-driver-manager:v1")),
          new Case(
              "daemonsets-overrides",
              new ClusterFacts("v1.36.3", "containerd", true, 3, true, "ubuntu22.04"),
              Map.of()),
          new Case("nvidia-defaults", ClusterFacts.offline(2, "ubuntu22.04"), Map.of(), false),
          new Case(
              "chart-defaults",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "rhel9"),
              Map.of()),
          new Case(
              "agents-config",
              new ClusterFacts("v1.36.3", "containerd", false, 2, true, "ubuntu24.04"),
              // The toolkit runs our agent only where our image is named (not by default).
              Map.of("CONTAINER_TOOLKIT_IMAGE", io.gpuoperator.api.OperandImages.projectImage())),
          new Case(
              "nvidia-config",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04"),
              Map.of()),
          new Case(
              "dra-driver",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu24.04"),
              Map.of()),
          new Case(
              "sandbox-kubevirt",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu24.04")
                  .withConfigMapKeys(
                      Map.of(
                          "vgpu-modprobe", List.of("nvidia.conf"),
                          "vgpu-layouts", List.of("config.yaml"))),
              Map.of(),
              false),
          new Case(
              "sandbox-kata",
              new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04"),
              Map.of()),
          new Case(
              "openshift",
              new ClusterFacts("v1.36.3", "crio", false, 2, true, "rhcos4.18").withOpenShift(true),
              Map.of("OPERATOR_NAMESPACE", "nvidia-gpu-operator")),
          new Case(
              "openshift-dtk",
              DriverToolkitModelTest.facts(),
              Map.of("OPERATOR_NAMESPACE", "nvidia-gpu-operator")),
          new Case(
              "dra-driver-beta",
              new ClusterFacts("v1.32.9", "containerd", false, 2, true, "ubuntu22.04")
                  .withResourceApi(ResourceApiVersion.V1BETA1),
              Map.of()));

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Case c : CASES) {
      for (Operand m : Operands.ordered()) {
        out.add(Arguments.of(c.name(), m.name()));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}/{1}")
  @MethodSource("cases")
  void rendersAsGolden(String caseName, String operand) throws IOException {
    Case c = CASES.stream().filter(x -> x.name().equals(caseName)).findFirst().orElseThrow();
    ClusterPolicy policy = c.policy();
    Operand model = Operands.byName(operand);
    String actual = render(model, policy, c.facts(), c.config());
    Path file = GOLDEN.resolve(caseName).resolve(operand + ".yaml");
    if (UPDATE) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual, StandardCharsets.UTF_8);
    }
    assertThat(file).as("golden file (regenerate with -Dgolden.update=true)").exists();
    assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
  }

  /** The operand's objects as multi-document YAML; a disabled operand is a comment. */
  static String render(
      Operand model, ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    if (!model.enabled(policy)) {
      return "# " + model.name() + " is disabled by this policy: nothing is rendered\n";
    }
    StringBuilder out = new StringBuilder();
    out.append("# rendering: ")
        .append(ManifestRenderer.choose(model, RenderContext.of(policy, facts, config)).kind())
        .append('\n');
    for (HasMetadata o : model.render(policy, facts, config)) {
      String yaml = Serialization.asYaml(o);
      out.append(yaml.startsWith("---") ? yaml : "---\n" + yaml);
    }
    return out.toString();
  }
}
