package io.gpuoperator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocumentsTest {
  record Node(
      String name, Integer count, List<String> tags, Map<String, Integer> mig, Inner inner) {
    Node {
      if (count != null && count < 0) {
        throw new IllegalArgumentException("count: must be >= 0, got " + count);
      }
    }
  }

  record Inner(boolean on, String text) {}

  record Nodes(List<Node> nodes) {}

  @Test
  void everyFieldKeepsItsLineAndColumn() {
    Document d = Documents.parse("nodes:\n- name: a\n  count: 2\n  inner: {on: true}\n", "c.yaml");
    assertThat(d.where("nodes[0].count")).isEqualTo("c.yaml:3:3 nodes[0].count");
    assertThat(d.where("nodes[0].inner.on")).isEqualTo("c.yaml:4:11 nodes[0].inner.on");
    assertThat(d.where("nodes[0].missing")).isEqualTo("c.yaml:2:3 nodes[0].missing");
    assertThat(d.at("nodes[0].count").asInt()).isEqualTo(2);
  }

  @Test
  void aRecursiveAliasIsAnErrorWithItsLine() {
    assertThatThrownBy(() -> Documents.parse("a: &x\n  b: *x\n", "r.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("r.yaml:1:4 a.b: recursive alias *x");
  }

  @Test
  void aliasesExpandOnlyWithinABudget() {
    String laughs =
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
            + "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
            + "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";
    assertThatThrownBy(() -> Documents.parse(laughs, "l.yaml"))
        .hasMessageContaining("aliases expand to more than 10000 values");
    Document ok =
        Documents.parse("base: &b {on: true}\ncopy: *b\nmerged: {<<: *b, text: t}\n", "m");
    assertThat(ok.at("copy.on").asBoolean()).isTrue();
    assertThat(ok.at("merged.on").asBoolean()).isTrue();
    assertThat(ok.at("merged.text").asText()).isEqualTo("t");
  }

  @Test
  void deepNestingIsAnErrorNotAStackOverflow() {
    assertThatThrownBy(() -> Documents.parse("a: " + "[".repeat(5000) + "]".repeat(5000), "d"))
        .isInstanceOf(ConfigException.class)
        .hasMessageMatching("d:1:\\d+: .*nest.*");
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      deep.append("  ".repeat(i)).append("k:\n");
    }
    assertThatThrownBy(() -> Documents.parse(deep.toString(), "d2"))
        .hasMessageMatching("d2:\\d+:\\d+ k(\\.k)+: nested deeper than 64 levels");
    assertThatThrownBy(() -> Documents.parse("[".repeat(3000) + "]".repeat(3000), "j.json"))
        .hasMessageContaining("j.json:1:")
        .hasMessageContaining("nested deeper than 64 levels");
  }

  @Test
  void duplicateKeysAreRejectedNamingTheKeyAndBothLines() {
    assertThatThrownBy(() -> Documents.parse("a: 1\nb: 2\na: 3\n", "dup.yaml"))
        .hasMessage(
            "dup.yaml:3:1 a: duplicate key \"a\" (first at line 1); each key may appear once");
    assertThatThrownBy(() -> Documents.parse("{\"a\": 1,\n \"a\": 2}", "dup.json"))
        .hasMessage(
            "dup.json:2:2 a: duplicate key \"a\" (first at line 1); each key may appear once");
  }

  @Test
  void aSecondDocumentIsRejected() {
    assertThatThrownBy(() -> Documents.parse("a: 1\n---\nb: 2\n", "two.yaml"))
        .hasMessageStartingWith("two.yaml:3:1: a second document starts here");
    assertThat(Documents.parse("---\na: 1\n---\n", "one.yaml").at("a").asInt()).isEqualTo(1);
  }

  @Test
  void jsonWithTabsParsesAsJson() {
    Document d = Documents.parse("{\"a\":\t1,\n\t\"b\": [1,\t2]}", "t.json");
    assertThat(d.at("b[1]").asInt()).isEqualTo(2);
    assertThat(d.where("b")).isEqualTo("t.json:2:2 b");
  }

  @Test
  void scalarsAreTypedAsKubectlReadsThem() {
    Document d =
        Documents.parse(
            "a: yes\nb: 'yes'\nc: 0x10\nd: 012\ne: 1:0\nf: 12.40\ng: ~\nh: 1e3\ni: !!str 5\n", "s");
    assertThat(d.at("a").isBoolean()).isTrue();
    assertThat(d.at("b").isTextual()).isTrue();
    assertThat(d.at("c").asInt()).isEqualTo(16);
    assertThat(d.at("d").asText()).isEqualTo("012");
    assertThat(d.at("e").asText()).isEqualTo("1:0");
    assertThat(d.at("f").asText()).isEqualTo("12.40");
    assertThat(d.at("g").isNull()).isTrue();
    assertThat(d.at("h").isNumber()).isTrue();
    assertThat(d.at("i").isTextual()).isTrue();
  }

  @Test
  void bindingErrorsNameLineFieldAndExpectationInWords() {
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  count: 2.5\n"))
        .hasMessage("n.yaml:3:3 nodes[0].count: expected a whole number, got 2.5");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  count: many\n"))
        .hasMessage("n.yaml:3:3 nodes[0].count: expected a whole number, got \"many\"");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  count: 99999999999\n"))
        .hasMessageStartingWith("n.yaml:3:3 nodes[0].count: expected a whole number between");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  count: -1\n"))
        .hasMessage("n.yaml:3:3 nodes[0].count: must be >= 0, got -1");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  gpu: 8\n"))
        .hasMessageStartingWith("n.yaml:3:3 nodes[0].gpu: unknown field; known fields: count,");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  tags: [x]\n  inner: [1]\n"))
        .hasMessageContaining(
            "n.yaml:4:3 nodes[0].inner: expected a mapping of fields, got a list");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  inner: {on: maybe}\n"))
        .hasMessage("n.yaml:3:11 nodes[0].inner.on: expected true or false, got \"maybe\"");
    assertThatThrownBy(() -> bind("nodes:\n- name: a\n  mig: {1g.10gb: x}\n"))
        .hasMessage("n.yaml:3:9 nodes[0].mig.1g.10gb: expected a whole number, got \"x\"");
    assertThatThrownBy(() -> bind("")).hasMessage("n.yaml: the file is empty");
    assertThatThrownBy(() -> bind("- 1\n")).hasMessageContaining("expected a mapping of fields");
  }

  @Test
  void noMessageNamesAJavaType() {
    for (String bad :
        List.of(
            "nodes: 5",
            "nodes: [5]",
            "nodes: [{count: {}}]",
            "nodes: [{tags: {a: 1}}]",
            "nodes: [{mig: [1]}]",
            "nodes: [{inner: 7}]",
            "nodes: [{inner: {on: null}}]",
            "nodes: [{name: [1, 2]}]")) {
      assertThatThrownBy(() -> bind(bad))
          .describedAs(bad)
          .isInstanceOf(ConfigException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("java.", "`", "Exception"))
          .hasMessageStartingWith("n.yaml:1:");
    }
  }

  @Test
  void valuesInMessagesAreQuotedEscapedAndShortened() {
    String huge = "x".repeat(200_000);
    assertThatThrownBy(() -> bind("nodes:\n- count: \"" + huge + "\"\n"))
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200))
        .hasMessageContaining("(200000 characters)");
    assertThatThrownBy(() -> bind("nodes:\n- count: \"\\e[31mred\"\n"))
        .hasMessageContaining("\\u001b[31mred")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u001b"));
  }

  @Test
  void lenientBindingWarnsAboutUnknownFieldsWithTheirLines() {
    List<String> warnings = new ArrayList<>();
    Nodes n =
        Documents.parse("nodes:\n- name: a\n  future: 1\n", "l.yaml")
            .bindLenient(Nodes.class, warnings);
    assertThat(n.nodes()).hasSize(1);
    assertThat(warnings).containsExactly("l.yaml:3:3 nodes[0].future: unknown field, ignored");
  }

  @Test
  void sizeAndEncodingAreChecked(@TempDir Path dir) throws Exception {
    Path big = dir.resolve("big.yaml");
    Files.write(big, new byte[(1 << 20) + 10]);
    assertThatThrownBy(() -> Documents.read(big))
        .hasMessage(big + ": larger than 1 MiB; is this the right file?");
    Path bin = dir.resolve("bin.yaml");
    Files.write(bin, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
    assertThatThrownBy(() -> Documents.read(bin))
        .hasMessage(bin + ": not UTF-8 text (a binary file?)");
    assertThatThrownBy(() -> Documents.read(dir.resolve("none.yaml")))
        .hasMessage(dir.resolve("none.yaml") + ": cannot read: no such file or directory");
    assertThatThrownBy(() -> Documents.read(dir))
        .hasMessage(dir + ": is a directory, expected a file");
  }

  @Test
  void syntaxErrorsHaveALine() {
    assertThatThrownBy(() -> Documents.parse("a: b: c\n", "s.yaml"))
        .hasMessageStartingWith("s.yaml:1:5: not valid YAML: mapping values are not allowed here");
    assertThatThrownBy(() -> Documents.parse("a: 1\n\tb: 2\n", "t.yaml"))
        .hasMessageStartingWith("t.yaml:2:1: not valid YAML");
    assertThatThrownBy(() -> Documents.parse("a: !custom x\n", "g.yaml"))
        .hasMessage("g.yaml:1:4 a: unsupported tag \"!custom\"; write the plain value");
    assertThatThrownBy(() -> Documents.parse("a: *nothing\n", "u.yaml"))
        .hasMessageStartingWith("u.yaml:1:4: not valid YAML: found undefined alias nothing");
  }

  @Test
  void tomlIsReadThroughTheSamePath() {
    Document d =
        Documents.parse(
            "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\nruntime_type = \"x\"\n",
            "config.toml",
            Documents.Format.TOML,
            Documents.Limits.DEFAULT);
    assertThat(
            d.root().at("/plugins/io.containerd.grpc.v1.cri/containerd/runtimes/nvidia").isObject())
        .isTrue();
    assertThatThrownBy(
            () ->
                Documents.parse(
                    "a = \nb = 2\n", "bad.toml", Documents.Format.TOML, Documents.Limits.DEFAULT))
        .hasMessageStartingWith("bad.toml:1: not valid TOML");
  }

  private static Nodes bind(String yaml) {
    return Documents.parse(yaml, "n.yaml").bind(Nodes.class);
  }
}
