package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.operator.Policies;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PlanCommandTest {
  @TempDir Path dir;

  record Run(int rc, String out, String err) {}

  private Run run(String... args) {
    PlanCommand command = new PlanCommand();
    command.env = Map.of();
    CommandLine cmd = CommandLines.configure(new CommandLine(command));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int rc = cmd.execute(args);
    return new Run(rc, out.toString(), err.toString());
  }

  private Path sample() throws IOException {
    Path p = dir.resolve("clusterpolicy.yaml");
    try (InputStream in = Policies.class.getResourceAsStream(Policies.SAMPLE)) {
      Files.write(p, in.readAllBytes());
    }
    return p;
  }

  private Path nodes() throws IOException {
    Path p = dir.resolve("nodes.yaml");
    try (InputStream in = getClass().getResourceAsStream("/plan/nodes.yaml")) {
      Files.write(p, in.readAllBytes());
    }
    return p;
  }

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  /** A ClusterPolicy named p whose spec is these lines, the first of them line 6 of the file. */
  private Path policyFile(String name, String... specLines) throws IOException {
    return write(
        name,
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n"
            + String.join("\n", specLines)
            + "\n");
  }

  @Test
  void offlinePlanForTheSampleNamesEveryObjectAndEveryNode() throws IOException {
    Run r = run("-f", sample().toString(), "--nodes", nodes().toString());
    assertThat(r.rc()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("ClusterPolicy cluster-policy: valid")
        .contains("2 GPU node(s), runtime containerd, OS ubuntu22.04")
        .contains("    RuntimeClass/nvidia: create")
        .contains("    DaemonSet/nvidia-driver-daemonset: create")
        .contains("    DaemonSet/nvidia-device-plugin-daemonset: create")
        .contains("    ConfigMap/default-mig-parted-config: create")
        .contains("  dcgm (disabled)")
        .contains("  node-status-exporter (disabled)");
    // Per node: labels and taint, the user's pin kept, the non-GPU node untouched.
    assertThat(r.out())
        .containsPattern(
            "gpu-a100: GPU node\\n    labels: .*nvidia.com/gpu.deploy.dcgm-exporter=false")
        .containsPattern(
            "gpu-a100: GPU node\\n    labels: .*nvidia.com/gpu.deploy.mig-manager=true")
        .containsPattern("gpu-a100: GPU node\\n    labels: .*nvidia.com/mig.config=all-disabled")
        // The sample gives no spec.nodeTaint: no taint, as the original.
        .contains("    taint: none")
        .doesNotContain("+taint")
        .contains("  cpu-1: not a GPU node, no change")
        .containsPattern(
            "Summary: \\d+ to create, 0 to update, 0 to delete, 0 unchanged; 2 of 3 node");
    assertThat(r.out())
        .doesNotContain("gpu-t4: GPU node\n    labels: nvidia.com/gpu.deploy.mig-manager");
  }

  @Test
  void nodesWithTaintsTheOperandsDoNotTolerateAreReported() throws IOException {
    Path nodes =
        write(
            "tainted.yaml",
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: List",
                "items:",
                "  - apiVersion: v1",
                "    kind: Node",
                "    metadata:",
                "      name: reserved-gpu",
                "      labels:",
                "        feature.node.kubernetes.io/pci-10de.present: 'true'",
                "    spec:",
                "      taints:",
                "        - key: node.kubernetes.io/unschedulable",
                "          effect: NoSchedule",
                "        - key: dedicated",
                "          value: training",
                "          effect: NoSchedule",
                ""));
    Run r = run("-f", sample().toString(), "--nodes", nodes.toString());
    assertThat(r.rc()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("    blocked: nvidia-driver-daemonset (taint dedicated=training:NoSchedule)")
        .doesNotContain("    runs:");
  }

  @Test
  void invalidPolicyExitsTwoNamingEachFieldAndItsLine() throws IOException {
    Path p =
        policyFile(
            "bad.yaml",
            "  mig:",
            "    strategy: sometimes",
            "  dcgm:",
            "    hostPort: 70000",
            "  driver:",
            "    enabled: yes-please",
            "  nodeTaint:",
            "    key: 'bad key'");
    Run r = run("-f", p.toString());
    assertThat(r.rc()).isEqualTo(2);
    assertThat(r.err())
        .contains("is not a valid ClusterPolicy")
        .contains(p + ":7:5 spec.mig.strategy: Unsupported value: \"sometimes\": supported values:")
        .contains(p + ":9:5 spec.dcgm.hostPort: must be less than or equal to 65535")
        .contains(
            p + ":11:5 spec.driver.enabled: must be of type boolean, got string \"yes-please\"")
        .contains(p + ":13:5 spec.nodeTaint.key: \"bad key\" does not match the pattern");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void crossFieldViolationsAlsoFailThePlan() throws IOException {
    Path p = policyFile("nri.yaml", "  cdi:", "    enabled: false", "    nriPluginEnabled: true");
    Run r = run("-f", p.toString());
    assertThat(r.rc()).isEqualTo(2);
    assertThat(r.err()).contains(p + ":8:5 spec.cdi.nriPluginEnabled: requires spec.cdi.enabled");
  }

  @Test
  void unknownFieldsAreWarnedAboutNotFatal() throws IOException {
    Path p =
        policyFile(
            "unknown.yaml",
            "  futureSection:",
            "    on: true",
            "  devicePlugin:",
            "    enable: false");
    Run r = run("-f", p.toString());
    assertThat(r.rc()).as(r.err()).isZero();
    assertThat(r.err()).contains("warning:").contains("spec.futureSection: unknown field");
    // Operand sections prune unknown fields too: a typo is named, never silently accepted.
    assertThat(r.err())
        .contains("spec.devicePlugin.enable: unknown field: the API server drops it");
  }

  @Test
  void badInputsExitTwo() throws IOException {
    Path policy = sample();
    assertThat(run("-f", dir.resolve("missing.yaml").toString()).rc()).isEqualTo(2);
    Path notNodes =
        write(
            "pods.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: x\n");
    Run r = run("-f", policy.toString(), "--nodes", notNodes.toString());
    assertThat(r.rc()).isEqualTo(2);
    assertThat(r.err()).contains(notNodes + ":4:3 items[0]: is a \"Pod\", expected a Node");
    assertThat(run("-f", policy.toString(), "--nodes", "x", "--kubeconfig", "y").rc()).isEqualTo(2);
    Run ns = run("-f", policy.toString(), "-n", "UPPER NS!");
    assertThat(ns.rc()).isEqualTo(2);
    assertThat(ns.err()).startsWith("plan: --namespace: expected a name of at most 63");
  }

  @Test
  void parsingProblemsAreOneLineWithTheLine() throws IOException {
    Path dup =
        write(
            "dup.yaml",
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec: {}\n"
                + "kind: ClusterPolicy\n");
    Run r = run("-f", dup.toString());
    assertThat(r.rc()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "plan: -f "
                + dup
                + ":5:1 kind: duplicate key \"kind\" (first at line 2); each key may appear once\n");
    Path alias = write("alias.yaml", "a: &x\n  b: *x\n");
    assertThat(run("-f", alias.toString()).err()).contains(alias + ":1:4 a.b: recursive alias *x");
    Path two = write("two.yaml", "apiVersion: nvidia.com/v1\n---\nkind: ClusterPolicy\n");
    assertThat(run("-f", two.toString()).err())
        .contains(two + ":3:1: a second document starts here");
    Path deep = write("deep.yaml", "spec: " + "[".repeat(2000) + "]".repeat(2000) + "\n");
    Run d = run("-f", deep.toString());
    assertThat(d.rc()).isEqualTo(2);
    assertThat(d.err()).contains("nested deeper than 64 levels").doesNotContain("Exception");
  }

  @Test
  void outputAsJsonOrYamlForScripts() throws IOException {
    Run json = run("-f", sample().toString(), "--nodes", nodes().toString(), "-o", "json");
    assertThat(json.rc()).as(json.err()).isZero();
    var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
    assertThat(tree.at("/policy/name").asText()).isEqualTo("cluster-policy");
    assertThat(tree.at("/summary/create").asInt()).isPositive();
    assertThat(tree.at("/nodes/0/name").asText()).isNotEmpty();
    assertThat(tree.at("/objects/0/action").asText()).isEqualTo("create");
    Run yaml = run("-f", sample().toString(), "-o", "yaml", "--manifests");
    assertThat(yaml.rc()).isZero();
    assertThat(yaml.out())
        .contains("summary:")
        .contains("manifest:")
        .contains("kind: \"DaemonSet\"");
    assertThat(run("-f", sample().toString(), "-o", "xml").rc()).isEqualTo(2);
  }

  @Test
  void manifestsOptionPrintsTheObjectsInTheChosenNamespace() throws IOException {
    Run r = run("-f", sample().toString(), "-n", "nvidia-gpu-operator", "--manifests");
    assertThat(r.rc()).isZero();
    assertThat(r.out())
        .contains("DaemonSet/nvidia-driver-daemonset: create")
        .contains("kind: \"DaemonSet\"")
        .contains("name: \"nvidia-device-plugin-daemonset\"\n  namespace: \"nvidia-gpu-operator\"")
        .doesNotContain("namespace: \"gpu-operator\"");
  }
}
