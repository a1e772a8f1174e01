package io.gpuoperator.node.gpu.sim;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import io.gpuoperator.node.config.YamlFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Loads hardware profiles (built into the jar or from disk) and node profiles. */
public final class HardwareProfiles {
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
      throw new ProfileException(
          "unknown GPU model '" + model + "'; built-in models: " + String.join(", ", BUILT_IN));
    }
    String resource = RESOURCE_DIR + model + ".yaml";
    try (InputStream in = HardwareProfiles.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new ProfileException("built-in profile missing from the jar: " + resource);
      }
      return YamlFiles.read(
          in, "classpath:" + resource, HardwareProfile.class, Map.of(), ProfileException::new);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A hardware profile from a YAML file. */
  public static HardwareProfile load(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return YamlFiles.read(
          in, file.toString(), HardwareProfile.class, Map.of(), ProfileException::new);
    } catch (IOException e) {
      throw new ProfileException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /**
   * A node profile from a YAML file. A GPU {@code model} is a built-in name or a hardware-profile
   * file, relative to the node profile's directory.
   */
  public static NodeProfile loadNode(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    try (InputStream in = Files.newInputStream(file)) {
      return YamlFiles.read(
          in, file.toString(), NodeProfile.class, Map.of(BASE_DIR, dir), ProfileException::new);
    } catch (IOException e) {
      throw new ProfileException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** A built-in node profile by name, e.g. {@code dgx-h100-mig-mixed}. */
  public static NodeProfile builtInNode(String name) {
    if (!BUILT_IN_NODES.contains(name)) {
      throw new ProfileException(
          "unknown node profile '"
              + name
              + "'; built-in node profiles: "
              + String.join(", ", BUILT_IN_NODES));
    }
    String resource = NODE_DIR + name + ".yaml";
    try (InputStream in = HardwareProfiles.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new ProfileException("built-in node profile missing from the jar: " + resource);
      }
      return YamlFiles.read(
          in, "classpath:" + resource, NodeProfile.class, Map.of(), ProfileException::new);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A node profile given as a built-in name or a file path. */
  public static NodeProfile node(String nameOrFile) {
    return BUILT_IN_NODES.contains(nameOrFile)
        ? builtInNode(nameOrFile)
        : loadNode(Path.of(nameOrFile));
  }

  /** A node profile from YAML text (models must be built-in); {@code source} names it in errors. */
  public static NodeProfile parseNode(String yaml, String source) {
    return YamlFiles.read(
        new java.io.ByteArrayInputStream(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        source,
        NodeProfile.class,
        Map.of(),
        ProfileException::new);
  }

  /** Resolves {@code model:} to a built-in profile or a profile file while parsing. */
  public static final class ModelDeserializer extends JsonDeserializer<HardwareProfile> {
    @Override
    public HardwareProfile deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      String model = p.getValueAsString();
      if (model == null || model.isBlank()) {
        return ctxt.reportInputMismatch(
            HardwareProfile.class, "expected a GPU model name (%s) or a profile file", BUILT_IN);
      }
      if (BUILT_IN.contains(model)) {
        return builtIn(model);
      }
      Object base = ctxt.getAttribute(BASE_DIR);
      if (base instanceof Path dir && (model.endsWith(".yaml") || model.endsWith(".yml"))) {
        Path file = dir.resolve(model);
        if (Files.isRegularFile(file)) {
          return load(file);
        }
        return ctxt.reportInputMismatch(
            HardwareProfile.class, "hardware profile file %s does not exist", file);
      }
      return ctxt.reportInputMismatch(
          HardwareProfile.class,
          "unknown GPU model '%s'; expected one of %s or a .yaml profile file",
          model,
          String.join(", ", BUILT_IN));
    }
  }
}
