package io.gpuoperator.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Resolves {@link Setting}s with one precedence for every command: the command-line flag, then the
 * environment variables in the order the setting names them, then the command's config file, then
 * the default. It remembers where each value came from, so every bad value is reported in one style
 * whatever its source:
 *
 * <pre>
 * --mig-strategy: unknown MIG strategy "x"; expected none, single or mixed
 * MIG_STRATEGY: unknown MIG strategy "x"; expected none, single or mixed
 * config.yaml:3:7 flags.migStrategy: unknown MIG strategy "x"; expected none, single or mixed
 * </pre>
 *
 * <p>Blank flag values and blank variables count as unset. Commands build one with {@link
 * io.gpuoperator.config.cli.SettingOptions#settings} (flags from picocli's parse result); tests and
 * in-process agents pass maps.
 */
public final class Settings {
  /**
   * A resolved value and where it came from.
   *
   * @param value the parsed value (the default when nothing was given; may be null)
   * @param origin {@code --flag}, {@code ENV_NAME}, {@code file:line:column field} or {@code
   *     default}
   * @param given true when a flag, variable or file field set it
   */
  public record Resolved<T>(T value, String origin, boolean given) {}

  private final Map<String, String> flags;
  private final Map<String, String> env;
  private final Document file;

  private Settings(Map<String, String> flags, Map<String, String> env, Document file) {
    this.flags = Map.copyOf(flags);
    this.env = env;
    this.file = file;
  }

  /**
   * @param flags flag values given on the command line, keyed by the flag's longest name ({@code
   *     --mig-strategy})
   * @param env the environment
   * @param file the command's config file, or null
   */
  public static Settings of(Map<String, String> flags, Map<String, String> env, Document file) {
    return new Settings(flags, env, file);
  }

  /** Only an environment (in-process agents, whose "command line" is their pod's env). */
  public static Settings ofEnv(Map<String, String> env) {
    return new Settings(Map.of(), env, null);
  }

  /** The same flags and environment with a (new) config file. */
  public Settings withFile(Document document) {
    return new Settings(flags, env, document);
  }

  /** The config file, or null. */
  public Document file() {
    return file;
  }

  /** The environment these settings read. */
  public Map<String, String> env() {
    return env;
  }

  /** The value of a setting (its default when nothing sets it). */
  public <T> T get(Setting<T> s) {
    return resolve(s).value();
  }

  /** The value of a setting and where it came from; ConfigException names that place. */
  public <T> Resolved<T> resolve(Setting<T> s) {
    for (String flag : s.flags()) {
      String v = flags.get(flag);
      if (v != null) {
        return parse(s, v, flag);
      }
    }
    for (String name : s.env()) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        return parse(s, v.strip(), name);
      }
    }
    if (file != null && s.field() != null) {
      JsonNode n = file.at(s.field());
      if (!n.isMissingNode() && !n.isNull()) {
        String where = file.where(s.field());
        if (n.isObject()) {
          throw new ConfigException(where + ": expected a single value, got a mapping");
        }
        List<String> parts = new ArrayList<>();
        if (n.isArray()) {
          for (JsonNode item : n) {
            if (!item.isValueNode()) {
              throw new ConfigException(where + ": expected a list of plain values");
            }
            parts.add(item.asText());
          }
        } else {
          parts.add(n.asText());
        }
        return parse(s, String.join(",", parts), where);
      }
    }
    return new Resolved<>(s.defaultValue(), "default", false);
  }

  /** True when a flag, variable or file field sets the setting. */
  public boolean isGiven(Setting<?> s) {
    for (String flag : s.flags()) {
      if (flags.containsKey(flag)) {
        return true;
      }
    }
    for (String name : s.env()) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        return true;
      }
    }
    return file != null
        && s.field() != null
        && !file.at(s.field()).isMissingNode()
        && !file.at(s.field()).isNull();
  }

  /** The error for a setting whose value is fine alone but not with the others. */
  public ConfigException error(Setting<?> s, String problem) {
    Resolved<?> r = resolve(s);
    return new ConfigException((r.given() ? r.origin() : s.name()) + ": " + problem);
  }

  private static <T> Resolved<T> parse(Setting<T> s, String text, String origin) {
    try {
      return new Resolved<>(s.parse(text), origin, true);
    } catch (ConfigException e) {
      throw new ConfigException(origin + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      String m =
          e.getMessage() == null || e.getMessage().isBlank() ? "invalid value" : e.getMessage();
      throw new ConfigException(origin + ": " + m, e);
    }
  }
}
