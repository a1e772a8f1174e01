package io.gpuoperator.node.cdi;

import static io.gpuoperator.node.cdi.DriverRootFiles.file;
import static io.gpuoperator.node.cdi.DriverRootFiles.link;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.files.ConfinedRoot;
import io.gpuoperator.node.files.ConfinedRoot.PathOutsideRootException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 33 finding 2: a hostile driver root cannot put a host file into a CDI spec. Each escape a
 * link can make is fed to {@code cdi generate} (a containerised driver root, so device nodes come
 * from it too): the spec is refused, exit 1, with the path and the root named, and nothing is
 * written. A link that stays inside the root is still accepted.
 */
class CdiRootEscapeTest {
  static final String VERSION = "550.90.07"; // the l4-x1 profile's driver
  static final String LIB = "/usr/lib/x86_64-linux-gnu";

  @TempDir Path tmp;
  Path root;
  Path out;

  @BeforeEach
  void driverRoot() throws Exception {
    root = tmp.resolve("driver");
    out = Files.createDirectories(tmp.resolve("cdi"));
    file(root, LIB + "/libcuda.so." + VERSION);
    file(
        root, "/dev/nvidiactl"); // makes it a containerised driver: device nodes come from the root
  }

  @Test
  void aDeviceNodeLinkedToTheHostDiskIsRefused() throws Exception {
    link(root, "/dev/nvidia0", "/dev/sda");
    assertRefused(
        "device node /dev/nvidia0", root + "/dev/nvidia0", "/dev/nvidia0 is a link to /dev/sda");
  }

  @Test
  void aDeviceNodeLinkClimbingOutWithDotDotIsRefused() throws Exception {
    link(root, "/dev/nvidia0", "../../../../../../../../../dev/sda");
    assertRefused("device node /dev/nvidia0", root + "/dev/nvidia0", "climbs above the root");
  }

  @Test
  void aSymlinkedParentDirectoryIsRefused() throws Exception {
    Path elsewhere = Files.createDirectories(tmp.resolve("host-dev"));
    Files.writeString(elsewhere.resolve("nvidia0"), "the host's");
    Files.move(root.resolve("dev/nvidiactl"), elsewhere.resolve("nvidiactl"));
    Files.delete(root.resolve("dev"));
    Files.createSymbolicLink(root.resolve("dev"), elsewhere);
    // Read inside the root the link leads nowhere, so the model names root/dev/nvidia0 as the
    // driver reported it; the host would follow root/dev to the other directory.
    assertRefused(
        "device node /dev/nvidia0", root + "/dev/nvidia0", "/dev is a link to " + elsewhere);
  }

  @Test
  void anAbsoluteLinkThatStaysInsideTheRootIsAccepted() throws Exception {
    file(root, "/dev/nvidia0-real");
    link(root, "/dev/nvidia0", root + "/dev/nvidia0-real");
    Result r = generate();
    assertThat(r.code).as(r.err).isZero();
    assertThat(out.resolve("nvidia.com-gpu.yaml")).exists();
  }

  @Test
  void aPlainRootIsAccepted() throws Exception {
    file(root, "/dev/nvidia0");
    Result r = generate();
    assertThat(r.code).as(r.err).isZero();
  }

  @Test
  void aLibraryLinkedOutOfTheRootIsNeverMounted() throws Exception {
    file(root, "/dev/nvidia0");
    link(root, LIB + "/libnvidia-ml.so." + VERSION, "/etc/passwd");
    link(root, LIB + "/libnvidia-up.so." + VERSION, "../../../../../../../etc/shadow");
    Result r = generate();
    assertThat(r.code).as(r.err).isZero();
    String spec = Files.readString(out.resolve("nvidia.com-gpu.yaml"));
    assertThat(spec).contains(root + LIB + "/libcuda.so." + VERSION);
    assertThat(spec).doesNotContain("libnvidia-ml", "libnvidia-up", "/etc/");
  }

  @Test
  void aMountWhoseSourceLeadsOutIsRefusedWhateverBuiltTheSpec() throws Exception {
    link(root, LIB + "/libcuda.so.1", "/etc/shadow");
    CdiSpec spec =
        new CdiSpec(
            CdiSpec.VERSION,
            "nvidia.com/gpu",
            List.of(),
            new CdiSpec.ContainerEdits(
                List.of(),
                List.of(),
                List.of(
                    new CdiSpec.Mount(
                        root + LIB + "/libcuda.so.1",
                        LIB + "/libcuda.so.1",
                        NvidiaCdiModel.MOUNT_OPTIONS)),
                List.of()));
    ConfinedRoot driver = new ConfinedRoot("driver root", root.toString(), root);
    assertThatThrownBy(() -> CdiSpecConfinement.check(spec, driver, driver))
        .isInstanceOf(PathOutsideRootException.class)
        .hasMessageContaining("mount " + LIB + "/libcuda.so.1")
        .hasMessageContaining("driver root " + root)
        .hasMessageContaining("is a link to /etc/shadow");
  }

  @Test
  void aHostPathWithItsOwnDotDotOrOutsideTheRootIsRefused() {
    ConfinedRoot driver = new ConfinedRoot("driver root", root.toString(), root);
    assertThatThrownBy(() -> driver.check("mount /x", root + "/../../etc/shadow"))
        .hasMessageContaining("'..'");
    assertThatThrownBy(() -> driver.check("mount /x", "/etc/shadow"))
        .hasMessageContaining("not below the root");
  }

  @Test
  void aDevicePluginStyleSpecIsCheckedAgainstItsDevRoot() throws Exception {
    link(root, "/dev/nvidia0", "/dev/sda");
    // As the device plugin's and DRA driver's specs name nodes: the dev root joined to the path.
    CdiSpec spec =
        new CdiSpec(
            CdiSpec.VERSION,
            "k8s.device-plugin.nvidia.com/gpu",
            List.of(
                new CdiSpec.Device(
                    "0",
                    CdiSpec.ContainerEdits.ofDeviceNodes(
                        List.of(new CdiSpec.DeviceNode("/dev/nvidia0", root + "/dev/nvidia0"))))),
            CdiSpec.ContainerEdits.EMPTY);
    ConfinedRoot dev = new ConfinedRoot("dev root", root.toString(), root);
    assertThatThrownBy(() -> CdiSpecConfinement.check(spec, dev, dev))
        .hasMessageContaining("device node /dev/nvidia0 (" + root + "/dev/nvidia0)")
        .hasMessageContaining("is a link to /dev/sda");
  }

  private void assertRefused(String what, String hostPath, String why) throws Exception {
    Result r = generate();
    assertThat(r.code).as(r.err).isEqualTo(1);
    assertThat(r.err)
        .contains(what + " (" + hostPath + ")")
        .contains("does not stay inside the dev root " + root)
        .contains(why);
    try (var s = Files.list(out)) {
      assertThat(s.toList()).as("nothing written").isEmpty();
    }
  }

  record Result(int code, String err) {}

  private Result generate() {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--driver-root",
                root.toString(),
                "--node-name",
                "node-a",
                "--backend",
                "simulated",
                "--node-profile",
                "l4-x1",
                "--mig-minors-file",
                tmp.resolve("none").toString(),
                "--output",
                out.toString()));
    CommandLine cl = new CommandLine(new CdiGenerateCommand());
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(new StringWriter(), true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args.toArray(String[]::new));
    return new Result(code, err.toString());
  }
}
