package io.gpuoperator.node.validator;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Documents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The toolkit step: the container runtime's config (or its drop-in) declares the nvidia runtime,
 * and, with CDI on, an NVIDIA CDI spec exists and is well formed (cdiVersion, vendor/class kind,
 * named devices with container edits).
 */
final class ToolkitValidation {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ToolkitValidation.class);

  private final ValidatorConfig config;

  ToolkitValidation(ValidatorConfig config) {
    this.config = config;
  }

  /**
   * Checks until it passes or the timeout ends: right after the driver is ready the toolkit may
   * still be configuring the runtime, and a retry here saves an init-container restart.
   */
  CompletableFuture<String> validate(Waits waits) {
    Instant deadline = Instant.now().plus(config.timeout());
    AtomicReference<String> last = new AtomicReference<>();
    return waits.poll(
        config.poll(),
        () -> {
          checkRuntime();
          if (config.cdiEnabled()) {
            checkCdi();
          }
          return "";
        },
        e -> {
          if (!Instant.now().isBefore(deadline)) {
            return false;
          }
          if (!e.getMessage().equals(last.getAndSet(e.getMessage()))) {
            LOG.info(
                "toolkit not ready yet ({}); checking again until {}", e.getMessage(), deadline);
          }
          return true;
        });
  }

  private void checkRuntime() throws ValidationException {
    List<Path> files = new ArrayList<>();
    files.add(config.runtimeConfig());
    if (config.runtimeDropInConfig() != null) {
      files.add(config.runtimeDropInConfig());
    }
    List<String> seen = new ArrayList<>();
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        continue;
      }
      JsonNode root;
      try {
        root =
            Documents.read(
                    f,
                    config.runtime().equals("docker")
                        ? Documents.Format.YAML
                        : Documents.Format.TOML,
                    Documents.Limits.DEFAULT)
                .root();
      } catch (ConfigException e) {
        throw new ValidationException("runtime config " + e.getMessage(), e);
      }
      seen.add(f.toString());
      if (declaresRuntime(root, config.runtimeName())) {
        return;
      }
    }
    if (seen.isEmpty()) {
      throw new ValidationException(
          "runtime config "
              + String.join(" or ", files.stream().map(Path::toString).toList())
              + " does not exist");
    }
    throw new ValidationException(
        "runtime config "
            + String.join(", ", seen)
            + ": no runtime named '"
            + config.runtimeName()
            + "' (expected a runtimes."
            + config.runtimeName()
            + " entry written by the toolkit)");
  }

  /** Whether some {@code runtimes} table, at any depth, has an entry for the runtime. */
  static boolean declaresRuntime(JsonNode node, String name) {
    if (node == null || !node.isObject()) {
      return false;
    }
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals("runtimes") && e.getValue().isObject() && e.getValue().has(name)) {
        return true;
      }
      if (declaresRuntime(e.getValue(), name)) {
        return true;
      }
    }
    return false;
  }

  private void checkCdi() throws ValidationException {
    Path dir = config.cdiDir();
    List<Path> specs;
    try (Stream<Path> s = Files.list(dir)) {
      specs = s.filter(p -> p.toString().matches(".*\\.(ya?ml|json)$")).sorted().toList();
    } catch (IOException e) {
      throw new ValidationException(
          "CDI spec directory " + dir + " cannot be read: " + e.getMessage(), e);
    }
    int nvidia = 0;
    for (Path p : specs) {
      JsonNode spec;
      try {
        spec = Documents.read(p).root();
      } catch (ConfigException e) {
        throw new ValidationException("CDI spec " + e.getMessage(), e);
      }
      String kind = spec == null ? "" : spec.path("kind").asText("");
      if (!kind.startsWith("nvidia.com/") && !kind.startsWith("management.nvidia.com/")) {
        continue;
      }
      validateSpec(p, spec);
      nvidia++;
    }
    if (nvidia == 0) {
      throw new ValidationException(
          "no NVIDIA CDI spec (kind nvidia.com/... or management.nvidia.com/...) in " + dir);
    }
  }

  static void validateSpec(Path p, JsonNode spec) throws ValidationException {
    String version = spec.path("cdiVersion").asText("");
    if (!version.matches("\\d+\\.\\d+\\.\\d+")) {
      throw new ValidationException(
          "CDI spec "
              + p
              + ": field cdiVersion: expected a version like 0.5.0, got '"
              + version
              + "'");
    }
    String kind = spec.path("kind").asText("");
    if (!kind.matches("[a-z0-9.-]+/[a-zA-Z0-9_.-]+")) {
      throw new ValidationException(
          "CDI spec " + p + ": field kind: expected <vendor>/<class>, got '" + kind + "'");
    }
    JsonNode devices = spec.path("devices");
    if (!devices.isArray() || devices.isEmpty()) {
      throw new ValidationException("CDI spec " + p + ": field devices: expected a non-empty list");
    }
    for (int i = 0; i < devices.size(); i++) {
      JsonNode d = devices.get(i);
      if (d.path("name").asText("").isEmpty()) {
        throw new ValidationException(
            "CDI spec " + p + ": field devices[" + i + "].name: required");
      }
      if (!d.path("containerEdits").isObject()) {
        throw new ValidationException(
            "CDI spec " + p + ": field devices[" + i + "].containerEdits: expected an object");
      }
    }
  }
}
