package io.gpuoperator.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binds a {@link Document} to a type and turns every Jackson failure into {@code file:line:column
 * path: problem}, where the problem says what was expected and what was found in words (a whole
 * number, true or false, a list) and never names a Java type.
 */
final class Binding {
  static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
          .build();

  /** A record constructor's message that starts with the field it is about. */
  private static final Pattern LEADING_KEY = Pattern.compile("([A-Za-z][A-Za-z0-9_.-]*): (.*)");

  private Binding() {}

  static <T> T bind(Document doc, ObjectReader reader) {
    if (doc.isEmpty()) {
      throw new ConfigException(doc.source() + ": the file is empty");
    }
    try {
      T value = reader.readValue(doc.root());
      if (value == null) {
        throw new ConfigException(doc.source() + ": the file is empty");
      }
      return value;
    } catch (JsonMappingException e) {
      throw describe(doc, e);
    } catch (InputCoercionException e) {
      throw coercion(doc, e);
    } catch (IOException e) {
      throw new ConfigException(doc.source() + ": " + clean(e.getMessage()), e);
    }
  }

  static <T> T bindLenient(Document doc, Class<T> type, List<String> warnings) {
    List<String> unknown = new ArrayList<>();
    ObjectReader reader =
        STRICT
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
                    // The parser stands on the unknown field: its name ends the path.
                    unknown.add(path(p.getParsingContext()));
                    p.skipChildren();
                    return true;
                  }
                });
    T value = bind(doc, reader);
    for (String path : unknown) {
      warnings.add(doc.where(path) + ": unknown field, ignored");
    }
    return value;
  }

  private static ConfigException describe(Document doc, JsonMappingException e) {
    List<Object> segments = new ArrayList<>();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        segments.add(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        segments.add(r.getIndex());
      }
    }
    String path = Paths.join(segments);
    JsonNode found = nodeAt(doc.root(), segments);
    String problem;
    if (e instanceof UnrecognizedPropertyException u) {
      TreeSet<String> known = new TreeSet<>();
      u.getKnownPropertyIds().forEach(k -> known.add(String.valueOf(k)));
      if (!path.endsWith(u.getPropertyName())) {
        path = Paths.child(path, u.getPropertyName());
      }
      problem = "unknown field; known fields: " + String.join(", ", known);
    } else if (e instanceof ValueInstantiationException && e.getCause() != null) {
      String m = clean(e.getCause().getMessage());
      Matcher k = LEADING_KEY.matcher(m);
      if (k.matches()) {
        path = Paths.child(path, k.group(1));
        m = k.group(2);
      }
      problem = m.isBlank() ? "invalid value" : m;
    } else if (e instanceof InvalidNullException
        || (e.getOriginalMessage() != null
            && e.getOriginalMessage().startsWith("Cannot map `null`"))) {
      Class<?> t = e instanceof MismatchedInputException mi ? mi.getTargetType() : null;
      problem = "required" + (t == null ? "" : ": expected " + expected(t));
    } else if (e instanceof MismatchedInputException mi && mentionsTypes(e.getOriginalMessage())) {
      Object value = e instanceof InvalidFormatException f ? f.getValue() : null;
      problem =
          "expected "
              + expected(mi.getTargetType())
              + ", got "
              + (found != null && !found.isMissingNode()
                  ? describe(found)
                  : value != null ? Values.quote(value) : "something else");
    } else if (e.getOriginalMessage() != null
        && e.getOriginalMessage().startsWith("Number value length")) {
      problem = "expected a number, got " + describe(found);
    } else if (e.getCause() instanceof InputCoercionException c) {
      problem = coercionProblem(c, found);
    } else {
      String m = clean(e.getOriginalMessage());
      problem = m.isBlank() ? "invalid value" : m;
    }
    return doc.error(path, problem);
  }

  private static ConfigException coercion(Document doc, InputCoercionException e) {
    String path = "";
    if (e.getProcessor() != null) {
      path = path(e.getProcessor().getParsingContext());
    }
    return doc.error(path, coercionProblem(e, null));
  }

  private static String coercionProblem(InputCoercionException e, JsonNode found) {
    Class<?> t = e.getTargetType();
    String range =
        t == Integer.TYPE || t == Integer.class
            ? "between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE
            : t == Long.TYPE || t == Long.class
                ? "between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE
                : "in range";
    return "expected a whole number "
        + range
        + (found != null ? ", got " + describe(found) : ", got a number out of range");
  }

  /** The path of a parser's position, in this project's notation. */
  private static String path(JsonStreamContext ctx) {
    List<Object> segments = new ArrayList<>();
    for (JsonStreamContext c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inObject() && c.getCurrentName() != null) {
        segments.add(0, c.getCurrentName());
      } else if (c.inArray()) {
        segments.add(0, Math.max(0, c.getCurrentIndex()));
      }
    }
    return Paths.join(segments);
  }

  private static JsonNode nodeAt(JsonNode root, List<Object> segments) {
    JsonPointer ptr = JsonPointer.empty();
    for (Object s : segments) {
      ptr = s instanceof Integer i ? ptr.appendIndex(i) : ptr.appendProperty((String) s);
    }
    return root.at(ptr);
  }

  /** What a value is, for "got …": the quoted text of a scalar, or its kind. */
  static String describe(JsonNode n) {
    if (n.isNull()) {
      return "nothing (null)";
    }
    if (n.isArray()) {
      return "a list";
    }
    if (n.isObject()) {
      return "a mapping";
    }
    if (n.isTextual()) {
      return Values.quote(n.asText());
    }
    return Values.quote(n.asText()).replace("\"", "");
  }

  /** The kind of value a Java type takes, in words. */
  static String expected(Class<?> t) {
    if (t == null) {
      return "another kind of value";
    }
    if (t == Integer.TYPE
        || t == Integer.class
        || t == Long.TYPE
        || t == Long.class
        || t == Short.TYPE
        || t == Short.class
        || t == Byte.TYPE
        || t == Byte.class
        || t == BigInteger.class) {
      return "a whole number";
    }
    if (t == Double.TYPE
        || t == Double.class
        || t == Float.TYPE
        || t == Float.class
        || t == BigDecimal.class) {
      return "a number";
    }
    if (t == Boolean.TYPE || t == Boolean.class) {
      return "true or false";
    }
    if (CharSequence.class.isAssignableFrom(t) || t == Character.TYPE || t == Character.class) {
      return "a string";
    }
    if (t.isEnum()) {
      return "one of "
          + Values.oneOf(Arrays.stream(t.getEnumConstants()).map(String::valueOf).toList());
    }
    if (t.isArray() || Collection.class.isAssignableFrom(t)) {
      return "a list";
    }
    if (t == Duration.class) {
      return "a duration such as 30s";
    }
    if (Map.class.isAssignableFrom(t)) {
      return "a mapping (key: value)";
    }
    return "a mapping of fields";
  }

  private static boolean mentionsTypes(String message) {
    return message == null || message.contains("`") || message.contains("java.");
  }

  static String clean(String message) {
    return Values.plain(message);
  }
}
