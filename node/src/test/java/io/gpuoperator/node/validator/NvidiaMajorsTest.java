package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaMajorsTest {
  @TempDir Path dev;

  @Test
  void procDevicesGivesEachModulesCharacterMajor() {
    NvidiaMajors m =
        NvidiaMajors.parse(
            "Character devices:\n  1 mem\n195 nvidia\n510 nvidia-uvm\n511 nvidia-caps\n\n"
                + "Block devices:\n  8 sd\n195 nvidia-uvm\n");
    assertThat(m).isEqualTo(new NvidiaMajors(195, 510, 511));
  }

  @Test
  void theNodesOfASimulationGiveTheirMajors() throws Exception {
    assumeTrue(mknod("nvidiactl", 195, 255) && mknod("nvidia-uvm", 510, 0), "mknod needs root");
    Files.writeString(dev.resolve("nvidia-modeset"), "not a device");

    assertThat(NvidiaMajors.ofNodes(dev)).isEqualTo(new NvidiaMajors(195, 510, null));
  }

  @Test
  void noNodesNoMajors() throws Exception {
    Files.writeString(dev.resolve("nvidiactl"), "a regular file has no device number");

    assertThat(NvidiaMajors.ofNodes(dev)).isEqualTo(new NvidiaMajors(null, null, null));
  }

  private boolean mknod(String name, int major, int minor) throws Exception {
    Process p =
        new ProcessBuilder(
                "mknod",
                dev.resolve(name).toString(),
                "c",
                Integer.toString(major),
                Integer.toString(minor))
            .redirectErrorStream(true)
            .start();
    p.getInputStream().readAllBytes();
    return p.waitFor() == 0;
  }
}
