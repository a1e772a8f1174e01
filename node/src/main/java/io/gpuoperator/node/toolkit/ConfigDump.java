package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The running runtime's effective config from its own command ({@code containerd config dump}), in
 * the host's root when the agent runs in a container ({@code chroot <host root>}).
 */
final class ConfigDump {
  private ConfigDump() {}

  /** Runs the command; fails with its exit code and first error line. */
  static ObjectNode run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
    p.getOutputStream().close();
    byte[] out;
    byte[] err;
    try {
      out = p.getInputStream().readAllBytes();
      err = p.getErrorStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 30 s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (p.exitValue() != 0) {
      String msg = new String(err, StandardCharsets.UTF_8).strip();
      throw new IOException(
          String.join(" ", command)
              + " exited "
              + p.exitValue()
              + (msg.isEmpty() ? "" : ": " + msg));
    }
    return TomlTree.parse(new String(out, StandardCharsets.UTF_8));
  }

  /** {@code [chroot <hostRoot>] <containerd> [--config <file>] config dump}. */
  static List<String> containerdCommand(String hostRoot, String containerd, String configFile) {
    List<String> cmd = new ArrayList<>();
    if (hostRoot != null && !hostRoot.equals("/")) {
      cmd.add("chroot");
      cmd.add(hostRoot);
    }
    cmd.add(containerd);
    if (configFile != null) {
      cmd.add("--config");
      cmd.add(configFile);
    }
    cmd.add("config");
    cmd.add("dump");
    return cmd;
  }

  /** The dump's {@code version}, or null. */
  static Integer version(JsonNode dump) {
    JsonNode v = dump.get("version");
    return v != null && v.isIntegralNumber() ? v.asInt() : null;
  }
}
