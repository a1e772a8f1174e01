package io.gpuoperator.node.gpu.sim;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileErrorsTest {
  @TempDir Path dir;

  private Path write(String name, String yaml) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, yaml);
    return f;
  }

  /** Loading {@code yaml} as a node profile fails with a profile error naming the file. */
  private AbstractThrowableAssert<?, ?> loadingFails(String yaml) throws Exception {
    Path f = write("node.yaml", yaml);
    return assertThatThrownBy(() -> HardwareProfiles.loadNode(f))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(f.toString());
  }

  /** As {@link #loadingFails(String)}, at {@code line} of the file. */
  private AbstractThrowableAssert<?, ?> loadingFails(String yaml, int line) throws Exception {
    return loadingFails(yaml).hasMessageStartingWith(dir.resolve("node.yaml") + ":" + line + ":");
  }

  @Test
  void wrongTypeNamesFileLineAndField() throws Exception {
    loadingFails(
            """
            driverVersion: 550.54.15
            cudaVersion: "12.4"
            gpus:
              - model: H100-SXM5-80GB
                count: eight
            """,
            5)
        .hasMessageContaining("gpus[0].count");
  }

  @Test
  void unknownFieldAndUnknownModelAreReported() throws Exception {
    loadingFails("driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpuz: []\ngpus: []\n", 3)
        .hasMessageContaining("gpuz");
    loadingFails(
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpus:\n  - model: V100\n    count: 1\n",
            4)
        .hasMessageContaining("gpus[0].model")
        .hasMessageContaining("unknown GPU model \"V100\"");
  }

  @Test
  void semanticErrorsNameTheField() throws Exception {
    loadingFails(
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpus: [{model: T4, count: 0}]\n", 3)
        .hasMessageEndingWith(":3:20 gpus[0].count: expected a whole number from 1 to 16, got 0");
    loadingFails("driverVersion: 550\ncudaVersion: \"12.4\"\ngpus: []\n")
        .hasMessageContaining("driverVersion: expected <major>.<minor>");
  }

  @Test
  void hardwareProfileFromDiskIsCheckedAgainstGoNvlibNaming() throws Exception {
    String good =
        new String(
            getClass()
                .getResourceAsStream("/io/gpuoperator/node/gpu/profiles/A100-SXM4-40GB.yaml")
                .readAllBytes());
    write("custom.yaml", good.replace("model: A100-SXM4-40GB", "model: custom"));
    Path node =
        write(
            "node.yaml",
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpus: [{model: custom.yaml, count: 1}]\n");
    HardwareProfiles.loadNode(node);
    // A memory size that rounds to another profile name is rejected.
    Path bad =
        write(
            "bad.yaml",
            good.replace(
                "memoryMB: 19968, multiprocessors: 42", "memoryMB: 29968, multiprocessors: 42"));
    assertThatThrownBy(() -> HardwareProfiles.load(bad))
        .hasMessageStartingWith(bad.toString())
        .hasMessageContaining("names the profile 3g.30gb, not 3g.20gb");
  }
}
