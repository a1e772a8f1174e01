package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.validator.DevCharSymlinks.Link;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The /dev/char links against temp directories: which links (the original's --create-all set), the
 * numbers from /proc/devices and mig-minors text (no device nodes, no root needed), idempotence and
 * atomic replacement, and the driver step's switch and messages.
 */
class DevCharSymlinksTest {
  static final String PROC_DEVICES =
      """
      Character devices:
        1 mem
        4 /dev/vc/0
      195 nvidia
      234 nvidia-uvm
      237 nvidia-caps
      240 nvidia-nvswitch

      Block devices:
        7 loop
      235 nvidia-uvm
      """;
  static final String MIG_MINORS =
      """
      config 1
      monitor 2
      gpu0/gi0/access 3
      gpu0/gi0/ci0/access 4
      gpu0/gi0/ci1/access 5
      gpu0/gi1/access 12
      gpu0/gi1/ci0/access 13
      gpu0/gi3/access 30
      gpu1/gi0/access 66
      """;

  @TempDir Path tmp;
  Path linkDir;
  Path procDevices;
  Path migMinors;
  Path hostRoot;

  @BeforeEach
  void files() throws Exception {
    linkDir = tmp.resolve("host-dev-char");
    procDevices = Files.writeString(tmp.resolve("devices"), PROC_DEVICES);
    migMinors = Files.writeString(tmp.resolve("mig-minors"), MIG_MINORS);
    hostRoot = Files.createDirectories(tmp.resolve("host"));
  }

  DevCharSymlinks links() {
    return new DevCharSymlinks(linkDir, procDevices, migMinors, hostRoot);
  }

  @Test
  void majorsComeFromTheCharacterSectionAndTheOldGpuNameCounts() {
    assertThat(NvidiaMajors.parse(PROC_DEVICES)).isEqualTo(new NvidiaMajors(195, 234, 237));
    assertThat(NvidiaMajors.parse("Character devices:\n195 nvidia-frontend\n"))
        .isEqualTo(new NvidiaMajors(195, null, null));
    assertThat(NvidiaMajors.parse("Character devices:\n  1 mem\n"))
        .isEqualTo(new NvidiaMajors(null, null, null));
  }

  @Test
  void everyNodeTheDriverCanHaveGetsALinkIntoTheDevRoot() throws Exception {
    Path d = Path.of("/run/nvidia/driver/dev");
    List<Link> links =
        DevCharSymlinks.plan(
            new NvidiaMajors(195, 234, 237),
            Map.of(
                "config", 1,
                "monitor", 2,
                "gpu0/gi0/access", 3,
                "gpu0/gi0/ci0/access", 4,
                "gpu0/gi1/access", 12,
                "gpu0/gi3/access", 30, // after a gap: the original stops at gi2
                "gpu1/gi0/access", 66),
            List.of(0, 1, -1),
            Path.of("/run/nvidia/driver"));
    assertThat(links)
        .containsExactly(
            new Link("195:254", d.resolve("nvidia-modeset")),
            new Link("195:255", d.resolve("nvidiactl")),
            new Link("234:0", d.resolve("nvidia-uvm")),
            new Link("234:1", d.resolve("nvidia-uvm-tools")),
            new Link("237:1", d.resolve("nvidia-caps/nvidia-cap1")),
            new Link("237:2", d.resolve("nvidia-caps/nvidia-cap2")),
            new Link("195:0", d.resolve("nvidia0")),
            new Link("237:3", d.resolve("nvidia-caps/nvidia-cap3")),
            new Link("237:4", d.resolve("nvidia-caps/nvidia-cap4")),
            new Link("237:12", d.resolve("nvidia-caps/nvidia-cap12")),
            new Link("195:1", d.resolve("nvidia1")),
            new Link("237:66", d.resolve("nvidia-caps/nvidia-cap66")));
  }

  @Test
  void withoutMigCapabilitiesTheCapsMajorIsNotNeeded() throws Exception {
    List<Link> links =
        DevCharSymlinks.plan(new NvidiaMajors(195, 234, null), Map.of(), List.of(0), Path.of("/"));
    assertThat(links)
        .extracting(Link::name)
        .containsExactly("195:254", "195:255", "234:0", "234:1", "195:0");
    assertThat(links.get(4).target()).isEqualTo(Path.of("/dev/nvidia0"));
  }

  @Test
  void aMissingMajorSaysWhichModule() {
    assertThatThrownBy(
            () ->
                DevCharSymlinks.plan(
                    new NvidiaMajors(195, null, null), Map.of(), List.of(0), Path.of("/")))
        .isInstanceOf(ValidationException.class)
        .hasMessage(
            "no nvidia-uvm character device in /proc/devices (load it with modprobe nvidia-uvm)");
    assertThatThrownBy(
            () ->
                DevCharSymlinks.plan(
                    new NvidiaMajors(195, 234, null), Map.of("config", 1), List.of(), Path.of("/")))
        .hasMessageContaining("no nvidia-caps character device");
  }

  @Test
  void linksAreCreatedThenKeptAndAWrongOneIsReplaced() throws Exception {
    DevCharSymlinks.Outcome first = links().create(List.of(0, 1), Path.of("/"));
    assertThat(first.created()).isEqualTo(14);
    assertThat(Files.readSymbolicLink(linkDir.resolve("195:1"))).isEqualTo(Path.of("/dev/nvidia1"));
    assertThat(Files.readSymbolicLink(linkDir.resolve("237:13")))
        .isEqualTo(Path.of("/dev/nvidia-caps/nvidia-cap13"));

    assertThat(links().create(List.of(0, 1), Path.of("/")))
        .isEqualTo(new DevCharSymlinks.Outcome(0, 0, 14, List.of()));

    Files.delete(linkDir.resolve("195:0"));
    Files.createSymbolicLink(linkDir.resolve("195:0"), Path.of("../nvidia0")); // udev's form
    Files.delete(linkDir.resolve("195:1"));
    Files.createSymbolicLink(linkDir.resolve("195:1"), Path.of("/dev/nvidia7"));
    Files.delete(linkDir.resolve("234:0"));
    Files.writeString(linkDir.resolve("234:0"), "not a link");
    DevCharSymlinks.Outcome again = links().create(List.of(0, 1), Path.of("/"));

    assertThat(again).isEqualTo(new DevCharSymlinks.Outcome(0, 2, 12, List.of()));
    assertThat(Files.readSymbolicLink(linkDir.resolve("195:0"))).isEqualTo(Path.of("../nvidia0"));
    assertThat(Files.readSymbolicLink(linkDir.resolve("195:1"))).isEqualTo(Path.of("/dev/nvidia1"));
    assertThat(Files.readSymbolicLink(linkDir.resolve("234:0")))
        .isEqualTo(Path.of("/dev/nvidia-uvm"));
    try (var names = Files.list(linkDir)) {
      assertThat(names.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("."));
    }
  }

  @Test
  void aLinkThatCannotBeMadeIsReportedAndTheOthersAreStillMade() throws Exception {
    Files.createDirectories(linkDir.resolve("195:255/occupied"));
    DevCharSymlinks.Outcome o = links().create(List.of(0), Path.of("/"));
    assertThat(o.failed()).containsExactly("195:255");
    assertThat(o.created()).isEqualTo(11);
    assertThat(linkDir.resolve(".195:255.tmp")).doesNotExist();
  }

  @Test
  void aWsl2HostIsRecognisedByItsNvidiaSmi() throws Exception {
    assertThat(links().wsl()).isFalse();
    Path smi = hostRoot.resolve(DevCharSymlinks.WSL_NVIDIA_SMI);
    Files.createDirectories(smi.getParent());
    Files.writeString(smi, "ELF");
    assertThat(links().wsl()).isTrue();
  }

  // --- the driver step

  Map<String, String> env = new HashMap<>();
  Path driverRoot;

  @BeforeEach
  void driverRoot() throws Exception {
    driverRoot = Files.createDirectories(tmp.resolve("run/nvidia/driver/dev"));
    driverRoot = driverRoot.getParent();
    env.put("NVIDIA_DRIVER_ROOT", driverRoot.toString());
    env.put("VALIDATIONS_DIR", tmp.resolve("v").toString());
  }

  /** A backend of this kind with GPUs of these minors; only what the driver step asks. */
  static GpuBackend backend(String kind, int... minors) {
    List<GpuDevice> gpus = new ArrayList<>();
    for (int i = 0; i < minors.length; i++) {
      gpus.add(
          new GpuDevice(
              i,
              "GPU-" + i,
              "NVIDIA H100",
              "00000000:1" + i + ":00.0",
              0x233010DE,
              0,
              -1,
              minors[i],
              80L << 30,
              9,
              0,
              0,
              false,
              132));
    }
    return (GpuBackend)
        Proxy.newProxyInstance(
            GpuBackend.class.getClassLoader(),
            new Class<?>[] {GpuBackend.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "kind" -> kind;
                  case "devices" -> gpus;
                  case "driverVersion" -> "550.54.15";
                  case "close" -> null;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  String validate(String kind, int... minors) throws Exception {
    ValidatorConfig config = ValidatorConfig.fromEnv(env);
    return new DriverValidation(config, root -> backend(kind, minors), links()).validate();
  }

  @Test
  void theDriverStepLinksTheNvmlGpusNodesInTheDevRoot() throws Exception {
    assertThat(validate("nvml", 0, 3)).contains("NVIDIA_DEV_ROOT=" + driverRoot + "\n");
    assertThat(Files.readSymbolicLink(linkDir.resolve("195:3")))
        .isEqualTo(driverRoot.resolve("dev/nvidia3"));
    assertThat(Files.readSymbolicLink(linkDir.resolve("195:255")))
        .isEqualTo(driverRoot.resolve("dev/nvidiactl"));
    assertThat(linkDir.resolve("195:1")).doesNotExist();
  }

  @Test
  void theSwitchSimulatedGpusAndWsl2LeaveDevCharAlone() throws Exception {
    env.put("DISABLE_DEV_CHAR_SYMLINK_CREATION", "true");
    assertThat(validate("nvml", 0)).contains("GPU_COUNT=1");
    env.remove("DISABLE_DEV_CHAR_SYMLINK_CREATION");
    assertThat(validate("simulated", 0)).contains("GPU_COUNT=1");
    Path smi = hostRoot.resolve(DevCharSymlinks.WSL_NVIDIA_SMI);
    Files.createDirectories(smi.getParent());
    Files.writeString(smi, "ELF");
    assertThat(validate("nvml", 0)).contains("GPU_COUNT=1");
    assertThat(linkDir).doesNotExist();
  }

  @Test
  void aFailureFailsTheDriverStepAndSaysHowToTurnTheLinksOff() throws Exception {
    Files.writeString(procDevices, "Character devices:\n195 nvidia\n");
    assertThatThrownBy(() -> validate("nvml", 0))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("cannot link the NVIDIA device nodes under the host's /dev/char")
        .hasMessageContaining("no nvidia-uvm character device in /proc/devices")
        .hasMessageEndingWith(
            "set DISABLE_DEV_CHAR_SYMLINK_CREATION=true in the policy's validator.driver.env");
  }
}
