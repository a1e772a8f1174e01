package io.gpuoperator.node.cdi;

import static io.gpuoperator.node.cdi.DriverRootFiles.file;
import static io.gpuoperator.node.cdi.DriverRootFiles.link;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cdi generate} for a simulated 8×H100 node with a fake driver root of library files: the
 * spec validates against the CDI schema, names every GPU by index, by UUID and in {@code all}, and
 * holds no path outside the driver root even though the root has symlinks to {@code /etc}.
 */
class CdiGenerateTest {
  static final String VERSION = "550.54.15";
  static final String LIB = "/usr/lib/x86_64-linux-gnu";

  @TempDir Path tmp;
  Path root;
  ServerSocketChannel persistenced;

  @BeforeEach
  void fakeDriverRoot() throws Exception {
    root = tmp.resolve("driver");
    for (String lib : List.of("libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler")) {
      file(root, LIB + "/" + lib + ".so." + VERSION);
      link(root, LIB + "/" + lib + ".so.1", lib + ".so." + VERSION);
    }
    file(root, LIB + "/libnvidia-ml.so.535.0.0"); // another driver's: not this version
    // Links that lead out of the root: resolved inside it, they lead nowhere.
    link(root, LIB + "/libnvidia-evil.so." + VERSION, "/etc/passwd");
    link(root, LIB + "/libnvidia-up.so." + VERSION, "../../../../../../../../etc/shadow");
    link(root, "/usr/lib64", "/etc");
    link(root, LIB + "/vdpau", "/etc");
    file(root, "/usr/bin/nvidia-smi");
    link(root, "/usr/bin/nvidia-persistenced", "/usr/bin/ls");
    file(root, "/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin");
    for (int i = 0; i < 8; i++) {
      file(root, "/dev/nvidia" + i);
    }
    file(root, "/dev/nvidiactl");
    file(root, "/dev/nvidia-uvm");
    link(root, "/dev/nvidia-modeset", "/dev/null");
    Files.createDirectories(root.resolve("run/nvidia-persistenced"));
    persistenced = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    persistenced.bind(UnixDomainSocketAddress.of(root.resolve("run/nvidia-persistenced/socket")));
  }

  @org.junit.jupiter.api.AfterEach
  void close() throws Exception {
    persistenced.close();
  }

  @Test
  void eightH100sValidateAndAreNamedThreeWaysWithNothingOutsideTheRoot() throws Exception {
    String yaml = generate("--backend", "simulated", "--node-profile", "dgx-h100");
    JsonNode spec = new YAMLMapper().readTree(yaml);

    assertThat(CdiSchema.load().errors(spec)).isEmpty();
    assertThat(spec.path("cdiVersion").asText()).isEqualTo("0.5.0");
    assertThat(spec.path("kind").asText()).isEqualTo("nvidia.com/gpu");
    List<String> names = new ArrayList<>();
    spec.path("devices").forEach(d -> names.add(d.path("name").asText()));
    try (SimulatedBackend gpus =
        new SimulatedBackend(HardwareProfiles.node("dgx-h100"), "node-a")) {
      assertThat(gpus.devices()).hasSize(8);
      List<String> expected = new ArrayList<>();
      for (GpuDevice g : gpus.devices()) {
        expected.add(Integer.toString(g.index()));
        expected.add(g.uuid());
        assertThat(nodes(device(spec, g.uuid())))
            .containsExactly("/dev/nvidia" + g.minor() + "=" + root + "/dev/nvidia" + g.minor());
        assertThat(nodes(device(spec, Integer.toString(g.index()))))
            .isEqualTo(nodes(device(spec, g.uuid())));
        assertThat(nodes(device(spec, "all"))).contains(nodes(device(spec, g.uuid())).get(0));
      }
      expected.add("all");
      assertThat(names).containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(nodes(spec))
        .containsExactly(
            "/dev/nvidiactl=" + root + "/dev/nvidiactl",
            "/dev/nvidia-uvm=" + root + "/dev/nvidia-uvm");
    List<String> mounts = new ArrayList<>();
    spec.path("containerEdits")
        .path("mounts")
        .forEach(
            m -> mounts.add(m.path("containerPath").asText() + "=" + m.path("hostPath").asText()));
    assertThat(mounts)
        .containsExactlyInAnyOrder(
            LIB + "/libcuda.so." + VERSION + "=" + root + LIB + "/libcuda.so." + VERSION,
            LIB + "/libnvidia-ml.so." + VERSION + "=" + root + LIB + "/libnvidia-ml.so." + VERSION,
            LIB
                + "/libnvidia-ptxjitcompiler.so."
                + VERSION
                + "="
                + root
                + LIB
                + "/libnvidia-ptxjitcompiler.so."
                + VERSION,
            // soname links are mounted from their targets: no link is handed to the runtime
            LIB + "/libcuda.so.1=" + root + LIB + "/libcuda.so." + VERSION,
            LIB + "/libnvidia-ml.so.1=" + root + LIB + "/libnvidia-ml.so." + VERSION,
            LIB
                + "/libnvidia-ptxjitcompiler.so.1="
                + root
                + LIB
                + "/libnvidia-ptxjitcompiler.so."
                + VERSION,
            "/usr/bin/nvidia-smi=" + root + "/usr/bin/nvidia-smi",
            "/lib/firmware/nvidia/"
                + VERSION
                + "/gsp_ga10x.bin="
                + root
                + "/lib/firmware/nvidia/"
                + VERSION
                + "/gsp_ga10x.bin",
            "/run/nvidia-persistenced/socket=" + root + "/run/nvidia-persistenced/socket");
    for (String host : hostPaths(spec)) {
      assertThat(host).as("host path inside the driver root").startsWith(root + "/");
      assertThat(Path.of(host).normalize().toString()).isEqualTo(host);
    }
    assertThat(yaml).doesNotContain("/etc/", "evil", "hooks");
  }

  @Test
  void migDevicesGetTheirCapabilityNodes() throws Exception {
    MigDevice first;
    try (SimulatedBackend gpus =
        new SimulatedBackend(HardwareProfiles.node("dgx-h100-mig-mixed"), "node-a")) {
      first = gpus.migDevices(0).get(0);
    }
    String gi = "gpu0/gi" + first.gpuInstanceId();
    Files.writeString(
        tmp.resolve("mig-minors"),
        gi + "/access 12\n" + gi + "/ci" + first.computeInstanceId() + "/access 13\n");
    String yaml =
        generate(
            "--backend",
            "simulated",
            "--node-profile",
            "dgx-h100-mig-mixed",
            "--kind",
            "management.nvidia.com/gpu",
            "--device-name-strategy",
            "index,uuid,type-index",
            "--mig-minors-file",
            tmp.resolve("mig-minors").toString());
    JsonNode spec = new YAMLMapper().readTree(yaml);
    assertThat(CdiSchema.load().errors(spec)).isEmpty();
    JsonNode byIndex = device(spec, "0:" + first.index());
    assertThat(nodes(byIndex))
        .containsExactly(
            "/dev/nvidia0=" + root + "/dev/nvidia0",
            "/dev/nvidia-caps/nvidia-cap12=" + root + "/dev/nvidia-caps/nvidia-cap12",
            "/dev/nvidia-caps/nvidia-cap13=" + root + "/dev/nvidia-caps/nvidia-cap13");
    assertThat(nodes(device(spec, first.uuid()))).isEqualTo(nodes(byIndex));
    assertThat(nodes(device(spec, "mig0:" + first.index()))).isEqualTo(nodes(byIndex));
    assertThat(device(spec, "0")).as("a MIG-enabled GPU is not offered whole").isNull();
    assertThat(spec.path("kind").asText()).isEqualTo("management.nvidia.com/gpu");
  }

  @Test
  void aMigEnabledGpuWithoutMigDevicesStillHasTheAllDevice() throws Exception {
    // DRA's dynamic partitions: MIG mode on, devices created per claim later. The management
    // spec's "all" keeps the parent's node, so the toolkit's validation and its users find one.
    Path profile = tmp.resolve("mig-empty.yaml");
    Files.writeString(
        profile,
        """
        driverVersion: 550.54.15
        cudaVersion: "12.4"
        gpus:
          - model: H100-SXM5-80GB
            count: 1
            mig: {enabled: true, devices: {}}
        """);
    JsonNode spec =
        new YAMLMapper()
            .readTree(
                generate(
                    "--backend",
                    "simulated",
                    "--node-profile",
                    profile.toString(),
                    "--kind",
                    "management.nvidia.com/gpu"));
    assertThat(CdiSchema.load().errors(spec)).isEmpty();
    assertThat(device(spec, "0")).as("a MIG-enabled GPU is not offered whole").isNull();
    assertThat(nodes(device(spec, "all"))).containsExactly("/dev/nvidia0=" + root + "/dev/nvidia0");
  }

  @Test
  void hooksRunWithTheirOwnEnvironmentOnly() throws Exception {
    String json =
        generate(
            "--backend",
            "simulated",
            "--node-profile",
            "dgx-h100",
            "--format",
            "json",
            "--nvidia-cdi-hook-path",
            "/usr/local/nvidia/toolkit/nvidia-cdi-hook");
    JsonNode spec = new ObjectMapper().readTree(json);
    assertThat(CdiSchema.load().errors(spec)).isEmpty();
    JsonNode hook = spec.path("containerEdits").path("hooks").get(0);
    assertThat(hook.path("hookName").asText()).isEqualTo("createContainer");
    assertThat(hook.path("path").asText()).isEqualTo("/usr/local/nvidia/toolkit/nvidia-cdi-hook");
    assertThat(hook.path("env"))
        .extracting(JsonNode::asText)
        .containsExactly("NVIDIA_CTK_DEBUG=false");
    assertThat(hook.path("args"))
        .extracting(JsonNode::asText)
        .containsExactly("nvidia-cdi-hook", "update-ldcache", "--folder", LIB);
  }

  @Test
  void theSchemaCheckCatchesABrokenSpec() {
    CdiSchema schema = CdiSchema.load();
    ObjectNode broken = new ObjectMapper().createObjectNode();
    broken.put("cdiVersion", "0.5.0").put("kind", "nvidia.com/gpu");
    broken.putArray("devices").addObject().putObject("containerEdits").put("env", "not-a-list");
    assertThat(schema.errors(broken)).isNotEmpty();
  }

  @Test
  void writesIntoADirectoryUnderTheGeneratedName() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("cdi"));
    generate(
        "--backend",
        "simulated",
        "--node-profile",
        "l4-x1",
        "--output",
        out.toString(),
        "--kind",
        "management.nvidia.com/gpu");
    assertThat(out.resolve("management.nvidia.com-gpu.yaml")).exists();
    try (var s = Files.list(out)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactly("management.nvidia.com-gpu.yaml");
    }
  }

  private String generate(String... extra) {
    List<String> args =
        new ArrayList<>(List.of("--driver-root", root.toString(), "--node-name", "node-a"));
    args.addAll(List.of(extra));
    if (!args.contains("--mig-minors-file")) {
      args.addAll(List.of("--mig-minors-file", tmp.resolve("none").toString()));
    }
    CommandLine cl = new CommandLine(new CdiGenerateCommand());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args.toArray(String[]::new));
    assertThat(code).as(err.toString()).isZero();
    return out.toString();
  }

  private static JsonNode device(JsonNode spec, String name) {
    for (JsonNode d : spec.path("devices")) {
      if (d.path("name").asText().equals(name)) {
        return d;
      }
    }
    return null;
  }

  private static List<String> nodes(JsonNode withEdits) {
    List<String> out = new ArrayList<>();
    withEdits
        .path("containerEdits")
        .path("deviceNodes")
        .forEach(n -> out.add(n.path("path").asText() + "=" + n.path("hostPath").asText()));
    return out;
  }

  private static List<String> hostPaths(JsonNode spec) {
    List<String> out = new ArrayList<>();
    spec.findValues("hostPath").forEach(v -> out.add(v.asText()));
    return out;
  }
}
