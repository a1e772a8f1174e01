package io.gpuoperator.node.gpu.sim;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Values;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Loads hardware profiles (built into the jar or from disk) and node profiles. */
public final class HardwareProfiles {
  /** A simulated driver installation keeps the node's hardware description under this name. */
  public static final String DRIVER_ROOT_PROFILE = "node-profile.yaml";

  /** The built-in GPU models. */
  public static final List<String> BUILT_IN =
      List.of(
          "A100-SXM4-40GB",
          "A100-SXM4-80GB",
          "A30-PCIE-24GB",
          "H100-SXM5-80GB",
          "H100-NVL-94GB",
          "H100-96GB",
          "H200-SXM-141GB",
          "GH200-144GB",
          "B200-180GB",
          "GB200-186GB",
          "GB200-189GB",
          "B300-269GB",
          "GB300-278GB",
          "RTX-PRO-6000-96GB",
          "L4",
          "T4");

  /** The built-in node profiles (hardware of typical machines). */
  public static final List<String> BUILT_IN_NODES =
      List.of(
          "dgx-h100",
          "dgx-h100-mig-mixed",
          "dgx-h100-mig-single",
          "dgx-a100",
          "hgx-h200",
          "l4-x1",
          "t4-x4");

  private static final String RESOURCE_DIR = "/io/gpuoperator/node/gpu/profiles/";
  private static final String NODE_DIR = "/io/gpuoperator/node/gpu/nodes/";
  private static final String BASE_DIR = "baseDir";

  private HardwareProfiles() {}

  /** A built-in model by name, e.g. {@code H100-SXM5-80GB}. */
  public static HardwareProfile builtIn(String model) {
    if (!BUILT_IN.contains(model)) {
      throw new ConfigException(
          "unknown GPU model "
              + Values.quote(model)
              + "; built-in models: "
              + String.join(", ", BUILT_IN));
    }
    return resource(RESOURCE_DIR + model + ".yaml").bind(HardwareProfile.class);
  }

  /** A hardware profile from a YAML file. */
  public static HardwareProfile load(Path file) {
    return Documents.read(file).bind(HardwareProfile.class);
  }

  /**
   * A node profile from a YAML file. A GPU {@code model} is a built-in name or a hardware-profile
   * file, relative to the node profile's directory.
   */
  public static NodeProfile loadNode(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    return Documents.read(file).bind(NodeProfile.class, Map.of(BASE_DIR, dir));
  }

  /** A built-in node profile by name, e.g. {@code dgx-h100-mig-mixed}. */
  public static NodeProfile builtInNode(String name) {
    if (!BUILT_IN_NODES.contains(name)) {
      throw new ConfigException(
          "unknown node profile "
              + Values.quote(name)
              + "; built-in node profiles: "
              + String.join(", ", BUILT_IN_NODES)
              + ", or a YAML file");
    }
    return resource(NODE_DIR + name + ".yaml").bind(NodeProfile.class);
  }

  /** A node profile given as a built-in name or a file path. */
  public static NodeProfile node(String nameOrFile) {
    if (BUILT_IN_NODES.contains(nameOrFile)) {
      return builtInNode(nameOrFile);
    }
    Path file = Parse.path(nameOrFile);
    boolean looksLikeFile =
        nameOrFile.contains("/") || nameOrFile.endsWith(".yaml") || nameOrFile.endsWith(".yml");
    if (!looksLikeFile && !Files.isRegularFile(file)) {
      return builtInNode(nameOrFile); // neither a built-in name nor a file: say which names exist
    }
    return loadNode(file);
  }

  /** A node profile from YAML text (models must be built-in); {@code source} names it in errors. */
  public static NodeProfile parseNode(String yaml, String source) {
    return Documents.parse(yaml, source).bind(NodeProfile.class);
  }

  private static Document resource(String name) {
    try (InputStream in = HardwareProfiles.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("built-in profile missing from the jar: " + name);
      }
      return Documents.read(in, "classpath:" + name, Documents.Limits.DEFAULT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Resolves {@code model:} to a built-in profile or a profile file while parsing. */
  public static final class ModelDeserializer extends JsonDeserializer<HardwareProfile> {
    @Override
    public HardwareProfile deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      String model = p.getValueAsString();
      if (model == null || model.isBlank()) {
        return ctxt.reportInputMismatch(
            HardwareProfile.class,
            "expected a GPU model name (%s) or a profile file",
            String.join(", ", BUILT_IN));
      }
      if (BUILT_IN.contains(model)) {
        return builtIn(model);
      }
      Object base = ctxt.getAttribute(BASE_DIR);
      if (base instanceof Path dir && (model.endsWith(".yaml") || model.endsWith(".yml"))) {
        Path file = dir.resolve(model);
        if (Files.isRegularFile(file)) {
          try {
            return load(file);
          } catch (ConfigException e) {
            // A problem inside the model's file: its own position, after the referring field.
            return ctxt.reportInputMismatch(HardwareProfile.class, "%s", e.getMessage());
          }
        }
        return ctxt.reportInputMismatch(
            HardwareProfile.class, "hardware profile file %s does not exist", file);
      }
      return ctxt.reportInputMismatch(
          HardwareProfile.class,
          "unknown GPU model %s; expected one of %s or a .yaml profile file",
          Values.quote(model),
          String.join(", ", BUILT_IN));
    }
  }
}
