package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** In-place edits touch only their own lines; the writer's output reads back as the tree. */
class TomlTextTest {
  static final String DOC =
      """
      # top comment
      version = 2
      imports = [
        "/a.toml", # first
        "/b.toml",
      ]

      [plugins."io.containerd.grpc.v1.cri".containerd]
        # keep me
        default_runtime_name = "runc"
        snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes."runc.v2"]
        runtime_type = "io.containerd.runc.v2"
      """;

  static final List<String> CONTAINERD =
      List.of("plugins", "io.containerd.grpc.v1.cri", "containerd");

  @Test
  void replacesAMultiLineValueAndKeepsEveryOtherLine() throws Exception {
    var changes =
        List.of(
            new TomlTree.Change(
                List.of("imports"),
                TomlTree.TOML.createArrayNode().add("/a.toml").add("/b.toml").add("/c.toml")));
    String out = TomlTree.applyText(DOC, changes);
    assertThat(out)
        .isEqualTo(
            DOC.replace(
                "imports = [\n  \"/a.toml\", # first\n  \"/b.toml\",\n]\n",
                "imports = [\"/a.toml\", \"/b.toml\", \"/c.toml\"]\n"));
    assertThat(TomlTree.parse(out)).isEqualTo(TomlTree.apply(TomlTree.parse(DOC), changes));
  }

  @Test
  void setsAKeyInItsSectionAndAddsOneAfterTheLastKey() throws Exception {
    List<String> dflt = ContainerdConfigModel.concat(CONTAINERD, "default_runtime_name");
    List<String> cdi = ContainerdConfigModel.concat(CONTAINERD, "enable_cdi");
    String out =
        TomlTree.applyText(
            DOC,
            List.of(
                new TomlTree.Change(dflt, TextNode.valueOf("nvidia")),
                new TomlTree.Change(cdi, BooleanNode.TRUE)));
    assertThat(out)
        .contains(
            "  # keep me\n  default_runtime_name = \"nvidia\"\n  snapshotter = \"overlayfs\"\n"
                + "  enable_cdi = true\n\n[plugins");
  }

  @Test
  void aTableAppendedThenRemovedLeavesTheTextAsItWas() throws Exception {
    ObjectNode nvidia =
        TomlTree.TOML.createObjectNode().put("runtime_type", "io.containerd.runc.v2");
    nvidia.putObject("options").put("BinaryName", "/x");
    List<String> path = ContainerdConfigModel.concat(CONTAINERD, "runtimes", "nvidia");
    String added = TomlTree.applyText(DOC, List.of(new TomlTree.Change(path, nvidia)));
    assertThat(added).startsWith(DOC).contains("runtimes.nvidia.options]\n");
    assertThat(TomlTree.at(TomlTree.parse(added), path)).isEqualTo(nvidia);
    assertThat(TomlTree.applyText(added, List.of(new TomlTree.Change(path, null)))).isEqualTo(DOC);
  }

  @Test
  void theWriterRoundTripsQuotedKeysAndArraysOfTables() throws Exception {
    String doc =
        """
        version = 3
        [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
          SystemdCgroup = true
        [[proxy."a.b"]]
          name = "x\\"y"
        [[proxy."a.b"]]
          name = "z"
        """;
    ObjectNode tree = TomlTree.parse(doc);
    assertThat(TomlTree.parse(TomlWriter.document(tree))).isEqualTo(tree);
  }
}
