package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuoperator.node.files.AtomicFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CRI-O gets a drop-in with runtime handlers copied from its default runtime; the main file is
 * never written; uninstall removes the drop-in or puts back what was there. (No CRI-O binary is
 * packaged for these machines: the drop-in is checked as CRI-O merges it, key by key.)
 */
class CrioConfigurerTest {
  static final String CRIO_CONF =
      """
      # distribution default
      [crio.runtime]
      default_runtime = "crun"

      [crio.runtime.runtimes.crun]
      runtime_path = "/usr/bin/crun"
      runtime_root = "/run/crun"
      monitor_path = "/usr/libexec/crio/conmon"
      allowed_annotations = ["io.containers.trace-syscall"]
      """;

  @TempDir Path dir;

  @Test
  void dropInCopiesTheDefaultRuntimeAndLeavesTheMainFileAlone() throws Exception {
    Path main = dir.resolve("crio.conf");
    Files.writeString(main, CRIO_CONF);
    Path dropIn = dir.resolve("crio.conf.d/99-nvidia.conf");
    CrioConfigurer c = configurer(main, dropIn, true);

    assertThat(c.install().changed()).isTrue();

    assertThat(Files.readString(main)).isEqualTo(CRIO_CONF);
    JsonNode d = TomlTree.parse(Files.readString(dropIn));
    assertThat(d.path("crio").path("runtime").path("default_runtime").asText()).isEqualTo("nvidia");
    JsonNode nvidia = d.path("crio").path("runtime").path("runtimes").path("nvidia");
    assertThat(nvidia.path("runtime_path").asText())
        .isEqualTo("/usr/local/nvidia/toolkit/nvidia-container-runtime");
    assertThat(nvidia.path("runtime_type").asText()).isEqualTo("oci");
    assertThat(nvidia.path("monitor_path").asText()).isEqualTo("/usr/libexec/crio/conmon");
    assertThat(nvidia.path("allowed_annotations").get(0).asText())
        .isEqualTo("io.containers.trace-syscall");
    assertThat(d.path("crio").path("runtime").path("runtimes").has("crun"))
        .as("the drop-in holds only the toolkit's tables")
        .isFalse();
    assertThat(c.install().changed()).as("second install").isFalse();

    assertThat(c.uninstall().changed()).isTrue();
    assertThat(dropIn).doesNotExist();
    assertThat(ToolkitFaultTest.filesIn(dir.resolve("crio.conf.d"))).isEmpty();
    assertThat(Files.readString(main)).isEqualTo(CRIO_CONF);
  }

  @Test
  void aFileThatWasAtTheDropInPathComesBack() throws Exception {
    Path main = dir.resolve("crio.conf");
    Path dropIn = dir.resolve("crio.conf.d/99-nvidia.conf");
    Files.createDirectories(dropIn.getParent());
    String theirs =
        "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/usr/bin/nvidia-container-runtime\"\n";
    Files.writeString(dropIn, theirs);
    CrioConfigurer c = configurer(main, dropIn, false);
    c.install();
    assertThat(Files.readString(dropIn)).startsWith(ContainerdConfigurer.DROP_IN_HEADER);
    c.uninstall();
    assertThat(Files.readString(dropIn)).isEqualTo(theirs);
  }

  private static CrioConfigurer configurer(Path main, Path dropIn, boolean setAsDefault) {
    return new CrioConfigurer(
        main,
        dropIn,
        new RuntimeSettings(
            RuntimeSettings.nvidiaRuntimes("nvidia", "/usr/local/nvidia/toolkit", true),
            "nvidia",
            setAsDefault,
            true,
            List.of("/etc/cdi", "/var/run/cdi"),
            dropIn.toString()),
        AtomicFile.BeforeRename.NONE);
  }
}
