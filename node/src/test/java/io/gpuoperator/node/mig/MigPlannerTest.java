package io.gpuoperator.node.mig;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MigPlannerTest {
  @TempDir Path dir;

  static Node node(String name, String product, int count, long memory, String config) {
    var b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels("nvidia.com/gpu.product", product)
            .addToLabels("nvidia.com/gpu.count", String.valueOf(count))
            .addToLabels("nvidia.com/gpu.memory", String.valueOf(memory))
            .endMetadata();
    if (config != null) {
      b.editMetadata()
          .addToLabels(MigLabels.CONFIG, config)
          .addToLabels(MigLabels.STATE, "success")
          .endMetadata();
    }
    return b.build();
  }

  /** A mixed simulated cluster: 2x H100 nodes (one already all-1g.10gb), an A100-40GB node. */
  static List<Node> cluster() {
    return List.of(
        node("h100-0", "NVIDIA-H100-80GB-HBM3", 8, 81559, "all-disabled"),
        node("h100-1", "NVIDIA-H100-80GB-HBM3", 8, 81559, null),
        node("a100-0", "NVIDIA-A100-SXM4-40GB", 4, 40960, "all-1g.10gb"),
        node("cpu-0", null, 0, 0, null));
  }

  List<MigPlanner.Gpu> gpus(List<Node> nodes) {
    List<Node> withGpus = new ArrayList<>();
    for (Node n : nodes) {
      if (n.getMetadata().getLabels().get("nvidia.com/gpu.product") != null) {
        withGpus.add(n);
      }
    }
    return MigCommand.Plan.gpus(
        withGpus, MigConfigGenerator.defaults(), new PrintWriter(new StringWriter()));
  }

  static Node cleanup(Node n) {
    n.getMetadata().getLabels().values().removeIf(java.util.Objects::isNull);
    return n;
  }

  @Test
  void satisfiesADemandOnAMixedClusterTouchingFewGpus() {
    List<Node> nodes = cluster().stream().map(MigPlannerTest::cleanup).toList();
    var gpus = gpus(nodes);
    assertThat(gpus).hasSize(20);
    // a100-0's four GPUs already have 1g.10gb ×4 each: 16 of the 20 come from there.
    var plan = MigPlanner.plan(gpus, MigPlanner.parseDemand("1g.10gb=20,3g.40gb=4"));
    assertThat(plan.satisfied()).isTrue();
    assertThat(plan.kept()).hasSize(4).allMatch(g -> g.node().equals("a100-0"));
    int oneG = 0;
    int threeG = 0;
    for (var c : plan.changes()) {
      assertThat(MigConfigValidator.problem(c.gpu().model(), c.layout())).isNull();
      oneG += c.layout().getOrDefault("1g.10gb", 0);
      threeG += c.layout().getOrDefault("3g.40gb", 0);
    }
    assertThat(oneG).isGreaterThanOrEqualTo(4);
    assertThat(threeG).isEqualTo(4);
    // 4 more 1g.10gb and 4 3g.40gb fit on 2 H100s (3g ×2 + 1g ×1 each) plus one for the rest.
    assertThat(plan.changes()).hasSizeLessThanOrEqualTo(3);
  }

  @Test
  void saysExactlyWhatCannotBeMet() {
    var gpus = gpus(cluster().stream().map(MigPlannerTest::cleanup).toList());
    var plan = MigPlanner.plan(gpus, MigPlanner.parseDemand("3g.40gb=40,1g.5gb=1,7g.141gb=1"));
    assertThat(plan.satisfied()).isFalse();
    assertThat(plan.unmet()).containsEntry("3g.40gb", 8).containsEntry("7g.141gb", 1);
    assertThat(plan.reasons().get("3g.40gb"))
        .isEqualTo(
            "32 of 40 placed; the other 8 need more GPUs: all 16 GPU(s) with 3g.40gb (H100-SXM5-80GB) are used");
    assertThat(plan.reasons().get("7g.141gb"))
        .startsWith(
            "no GPU of the cluster has the profile 7g.141gb (GPUs: H100-SXM5-80GB, A100-SXM4-40GB)");
    // 1g.5gb exists on the A100 only, which is kept for nothing: a GPU is changed for it.
    assertThat(plan.unmet()).doesNotContainKey("1g.5gb");
  }

  @Test
  void theCommandPrintsConfigsAndLabelsAndExitsByOutcome() throws Exception {
    Path nodes = dir.resolve("nodes.yaml");
    var list =
        new io.fabric8.kubernetes.api.model.NodeListBuilder()
            .withItems(cluster().stream().map(MigPlannerTest::cleanup).toList())
            .build();
    Files.writeString(nodes, io.fabric8.kubernetes.client.utils.Serialization.asYaml(list));
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new MigCommand());
    cl.setOut(new PrintWriter(out));
    int code = cl.execute("plan", "--nodes", nodes.toString(), "--demand", "1g.10gb=20,3g.40gb=4");
    assertThat(code).as(out.toString()).isZero();
    assertThat(out.toString())
        .contains("keep   a100-0 GPU 0: 1g.10gb ×4")
        .contains("plan-h100-")
        .contains("kubectl label node h100-");
    // The printed configs are valid MIG configs for the GPUs they name.
    String yaml = out.toString().substring(out.toString().indexOf("version: v1"));
    yaml = yaml.substring(0, yaml.indexOf("\nThen label"));
    assertThat(MigConfigValidator.validate(MigConfigFile.parse(yaml, "plan"), MigCatalog.builtIn()))
        .allMatch(v -> v.status() == MigConfigValidator.Status.VALID);
    StringWriter out2 = new StringWriter();
    cl.setOut(new PrintWriter(out2));
    assertThat(cl.execute("plan", "--nodes", nodes.toString(), "--demand", "3g.40gb=99"))
        .isEqualTo(1);
    assertThat(out2.toString()).contains("Cannot be met:").contains("3g.40gb ×67");
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("plan", "--nodes", nodes.toString(), "--demand", "1g.10gb")).isEqualTo(2);
    assertThat(err.toString()).contains("--demand: '1g.10gb' is not <profile>=<count>");
  }

  @Test
  void validateCommandReportsPerConfigAndExitsNonZeroOnInvalid() throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(
        f,
        """
        version: v1
        mig-configs:
          good:
            - {devices: all, mig-enabled: true, mig-devices: {"1g.10gb": 7}}
          bad:
            - {device-filter: "0x233010DE", devices: all, mig-enabled: true, mig-devices: {"3g.40gb": 3}}
          other:
            - {device-filter: "0x12340DE0", devices: all, mig-enabled: true, mig-devices: {"1g.10gb": 7}}
        """);
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new MigCommand());
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute("validate", "-f", f.toString())).isEqualTo(1);
    assertThat(out.toString())
        .contains("good: valid: fits A100-SXM4-80GB, H100-SXM5-80GB")
        .contains("bad: invalid: (device-filter 0x233010DE): 3g.40gb ×3 exceeds its maximum of 2")
        .contains("other: skipped")
        .contains("3 config(s): 2 valid or skipped, 1 invalid");
    Path d = dir.resolve("defaults.yaml");
    Files.writeString(d, MigConfigGenerator.defaults().toYaml());
    assertThat(cl.execute("validate", "-f", d.toString())).isZero();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("validate", "-f", dir.resolve("none.yaml").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("cannot read");
    assertThat(Map.of()).isEmpty();
  }
}
