package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.TestDependencies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A real containerd binary for component tests: Debian's 1.6 (fetched by scripts/test-deps.sh), or
 * 2.0.14 and 2.4.2 built from Go modules by scripts/containerd-binaries.sh. {@code config dump}
 * needs no daemon.
 */
record Containerd(String name, Path binary, String script, boolean readsEnableCdi) {
  /** Debian 12's containerd 1.6.20: config versions 1 and 2, plugin key {@code cri} or v1 CRI. */
  static Containerd v16() {
    // 1.6 predates CDI: it accepts and ignores enable_cdi.
    return of(
        "containerd 1.6 (Debian)", "gpu-operator.containerd16", "scripts/test-deps.sh", false);
  }

  /** containerd 2.0.14: the last 2.x line that still reads {@code enable_cdi}. */
  static Containerd v20() {
    return of(
        "containerd 2.0.14 (Go modules)",
        "gpu-operator.containerd20",
        "scripts/containerd-binaries.sh",
        true);
  }

  /** containerd 2.4.2: CDI always on, {@code enable_cdi} dropped while migrating. */
  static Containerd v24() {
    return of(
        "containerd 2.4.2 (Go modules)",
        "gpu-operator.containerd24",
        "scripts/containerd-binaries.sh",
        false);
  }

  /** The 2.x binaries (config version 3, key {@code io.containerd.cri.v1.runtime}). */
  static List<Containerd> v2x() {
    return List.of(v20(), v24());
  }

  /** Every binary; all of them read version 2 configs (2.x migrates them). */
  static List<Containerd> all() {
    return List.of(v16(), v20(), v24());
  }

  private static Containerd of(
      String name, String property, String script, boolean readsEnableCdi) {
    String p = System.getProperty(property, "");
    return new Containerd(name, p.isEmpty() ? null : Path.of(p), script, readsEnableCdi);
  }

  /** Skips the test (fails it under CI=true) unless the binary is there. */
  Containerd require() {
    TestDependencies.require(
        binary != null && Files.isExecutable(binary),
        name + " not found at " + binary + "; run " + script);
    return this;
  }

  @Override
  public String toString() {
    return name;
  }

  /** {@code containerd --config <file> config dump}, run in the file's directory. */
  String dumpText(Path config) throws IOException {
    Process p =
        new ProcessBuilder(
                List.of(binary.toString(), "--config", config.toString(), "config", "dump"))
            .directory(config.getParent().toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    try {
      if (p.waitFor() != 0) {
        throw new IOException(name + " config dump of " + config + " exited " + p.exitValue());
      }
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
    return out;
  }

  ObjectNode dump(Path config) throws IOException {
    return TomlTree.parse(dumpText(config));
  }

  /** The CRI plugin's runtimes in a dump (the v2 key for 1.6, the v3 one for 2.x). */
  static JsonNode runtimes(ObjectNode dump) {
    JsonNode cri = criSection(dump);
    return cri.path("containerd").path("runtimes");
  }

  static JsonNode criSection(ObjectNode dump) {
    JsonNode plugins = dump.path("plugins");
    return plugins.has("io.containerd.cri.v1.runtime")
        ? plugins.path("io.containerd.cri.v1.runtime")
        : plugins.path("io.containerd.grpc.v1.cri");
  }
}
