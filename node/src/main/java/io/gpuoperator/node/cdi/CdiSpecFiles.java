package io.gpuoperator.node.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Names, renders and writes CDI spec files. The file name is the one the CDI library's {@code
 * GenerateNameForSpec} gives ({@code <vendor>-<class>.yaml}), so a spec written by NVIDIA's toolkit
 * earlier is replaced, not duplicated. Writes are atomic ({@link AtomicFile}).
 */
public final class CdiSpecFiles {
  /** The directory runtimes read generated specs from. */
  public static final String DEFAULT_DIR = "/var/run/cdi";

  /** The directory runtimes read static specs from. */
  public static final String STATIC_DIR = "/etc/cdi";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  // Every string quoted: a device name like 0:1 must not read back as a YAML 1.1 number.
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build());

  /** Serialisation format. */
  public enum Format {
    YAML,
    JSON;

    /** The file extension, without the dot. */
    public String extension() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** {@code yaml}/{@code yml} or {@code json}; anything else names the accepted values. */
    public static Format parse(String s) {
      return switch (s.toLowerCase(Locale.ROOT)) {
        case "yaml", "yml" -> YAML;
        case "json" -> JSON;
        default ->
            throw new IllegalArgumentException(
                "unknown CDI spec format '" + s + "' (expected yaml or json)");
      };
    }
  }

  private CdiSpecFiles() {}

  /** {@code <vendor>-<class>.<ext>} for a kind like {@code nvidia.com/gpu}. */
  public static String fileName(String kind, Format format) {
    CdiKind.check(kind);
    return kind.replace('/', '-') + "." + format.extension();
  }

  /** The spec as text. */
  public static String render(CdiSpec spec, Format format) {
    try {
      return (format == Format.JSON ? JSON : YAML).writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the spec into {@code dir} under its generated name; returns the file. */
  public static Path write(Path dir, CdiSpec spec, Format format) throws IOException {
    Path file = dir.resolve(fileName(spec.kind(), format));
    AtomicFile.write(file, render(spec, format).getBytes(StandardCharsets.UTF_8));
    return file;
  }

  /** Removes the spec of {@code kind} from {@code dir} in either format; true if one was there. */
  public static boolean remove(Path dir, String kind) throws IOException {
    boolean any = false;
    for (Format f : Format.values()) {
      any |= AtomicFile.delete(dir.resolve(fileName(kind, f)));
    }
    return any;
  }
}
