package io.gpuoperator.node.toolkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A real containerd binary for component tests: Debian's 1.6 or 2.x built from Go modules, both
 * fetched by scripts/containerd-binaries.sh. {@code config dump} needs no daemon.
 */
record Containerd(String name, Path binary) {
  static final String SCRIPT = "scripts/containerd-binaries.sh";

  static Containerd v1() {
    return of("containerd 1.6 (Debian)", "gpu-operator.containerd1");
  }

  static Containerd v2() {
    return of("containerd 2.x (Go modules)", "gpu-operator.containerd2");
  }

  private static Containerd of(String name, String property) {
    String p = System.getProperty(property, "");
    return new Containerd(name, p.isEmpty() ? null : Path.of(p));
  }

  /** Skips the test unless the binary is there. */
  Containerd require() {
    assumeTrue(
        binary != null && Files.isExecutable(binary),
        name + " not found at " + binary + "; run " + SCRIPT);
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
