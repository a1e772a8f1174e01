package io.gpuoperator.node.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads YAML files into records and turns every Jackson failure into one message of the form {@code
 * <file>:<line>:<column>: <field path>: <problem>}, so a user finds the line at fault. Strict reads
 * reject unknown fields; lenient reads (formats whose original ignores them) report them as
 * warnings.
 */
public final class YamlFiles {
  private static final ObjectMapper MAPPER =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

  private static final Pattern LEADING_KEY = Pattern.compile("([A-Za-z][A-Za-z0-9_.-]*): ");

  private YamlFiles() {}

  /** The mapper for the YAML formats of this package. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses a document strictly. {@code source} names the file in messages; {@code attributes} are
   * handed to custom deserializers (e.g. the directory a file lives in); {@code error} builds the
   * exception thrown for a bad document from its message.
   */
  public static <T> T read(
      InputStream in,
      String source,
      Class<T> type,
      Map<String, Object> attributes,
      BiFunction<String, Throwable, RuntimeException> error) {
    ObjectReader reader = MAPPER.readerFor(type);
    for (Map.Entry<String, Object> e : attributes.entrySet()) {
      reader = reader.withAttribute(e.getKey(), e.getValue());
    }
    return read(reader, readAll(in, source, error), source, error);
  }

  /**
   * Parses a document, skipping unknown fields; each one is added to {@code warnings} as {@code
   * <file>:<line>: unknown field '<name>' ignored}.
   */
  public static <T> T readLenient(
      InputStream in,
      String source,
      Class<T> type,
      List<String> warnings,
      BiFunction<String, Throwable, RuntimeException> error) {
    List<String> unknown = new ArrayList<>();
    ObjectReader reader =
        MAPPER
            .readerFor(type)
            .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .withHandler(
                new DeserializationProblemHandler() {
                  @Override
                  public boolean handleUnknownProperty(
                      DeserializationContext ctxt,
                      JsonParser p,
                      JsonDeserializer<?> deserializer,
                      Object beanOrClass,
                      String propertyName)
                      throws IOException {
                    unknown.add(propertyName + "@" + p.currentLocation().getLineNr());
                    p.skipChildren();
                    return true;
                  }
                });
    String text = readAll(in, source, error);
    T value = read(reader, text, source, error);
    for (String u : unknown) {
      String key = u.substring(0, u.lastIndexOf('@'));
      int line = Integer.parseInt(u.substring(u.lastIndexOf('@') + 1));
      int[] at = findKey(text, line, key);
      warnings.add(
          source + ":" + (at == null ? line : at[0]) + ": unknown field '" + key + "' ignored");
    }
    return value;
  }

  private static String readAll(
      InputStream in, String source, BiFunction<String, Throwable, RuntimeException> error) {
    try {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw error.apply(source + ": cannot read: " + e.getMessage(), e);
    }
  }

  private static <T> T read(
      ObjectReader reader,
      String text,
      String source,
      BiFunction<String, Throwable, RuntimeException> error) {
    try {
      T value = reader.readValue(text);
      if (value == null) {
        throw error.apply(source + ": the file is empty", null);
      }
      return value;
    } catch (JacksonException e) {
      throw error.apply(describe(source, text, e), e);
    }
  }

  /** {@code file:line:column: path: problem} for a Jackson failure. */
  public static String describe(String source, String text, JacksonException e) {
    String problem;
    String key = null;
    if (e instanceof ValueInstantiationException && e.getCause() != null) {
      problem = e.getCause().getMessage();
      Matcher m = LEADING_KEY.matcher(problem == null ? "" : problem);
      key = m.lookingAt() ? m.group(1) : null;
    } else {
      problem = e.getOriginalMessage();
      if (e instanceof UnrecognizedPropertyException u) {
        key = u.getPropertyName();
        problem = "unknown field '" + key + "'; known fields: " + u.getKnownPropertyIds();
      }
    }
    if (problem != null && problem.startsWith("Cannot map `null` into type")) {
      String type = problem.replaceAll("(?s)^Cannot map `null` into type `([^`]*)`.*", "$1");
      problem = "required, expected a value of type " + type;
    }
    int line = 0;
    int column = 0;
    JsonLocation loc = e.getLocation();
    if (loc != null && loc.getLineNr() > 0) {
      line = loc.getLineNr();
      column = loc.getColumnNr();
    }
    if (key != null && line > 0) {
      // Records are built (and unknown fields reported) at the end of their mapping; point at
      // the key itself instead, the nearest one above that position.
      int[] at = findKey(text, line, key);
      if (at != null) {
        line = at[0];
        column = at[1];
      }
    }
    StringBuilder sb = new StringBuilder(source);
    if (line > 0) {
      sb.append(':').append(line).append(':').append(column);
    }
    sb.append(": ");
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      sb.append(path(m)).append(": ");
    }
    sb.append(problem == null ? e.getClass().getSimpleName() : problem.strip());
    return sb.toString();
  }

  private static int[] findKey(String text, int beforeLine, String key) {
    String[] lines = text.split("\\R", -1);
    Pattern p = Pattern.compile("(?:^|[\\s{,\\[-])(" + Pattern.quote(key) + ")\\s*:");
    for (int i = Math.min(beforeLine, lines.length) - 1; i >= 0; i--) {
      Matcher m = p.matcher(lines[i]);
      int col = -1;
      while (m.find()) {
        col = m.start(1) + 1;
      }
      if (col > 0) {
        return new int[] {i + 1, col};
      }
    }
    return null;
  }

  private static String path(JsonMappingException m) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : m.getPath()) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }
}
