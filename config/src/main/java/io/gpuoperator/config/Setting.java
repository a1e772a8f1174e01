package io.gpuoperator.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One setting of a command, declared once: its flag(s), environment variable(s), field in the
 * command's config file, how a value is parsed and checked, and its default. {@link Settings}
 * resolves it (flag, then environment in the order given, then file, then default) and says where a
 * bad value came from. {@link io.gpuoperator.config.cli.SettingOptions} turns it into a picocli
 * option whose help names the variables, the field and the default.
 *
 * <pre>{@code
 * static final Setting<MigStrategy> MIG_STRATEGY =
 *     Setting.of("--mig-strategy", MigStrategy::parse)
 *         .env("MIG_STRATEGY")
 *         .field("flags.migStrategy")
 *         .label("STRATEGY")
 *         .help("How MIG devices are advertised: none, single or mixed.")
 *         .orElse(MigStrategy.NONE, "none");
 * }</pre>
 *
 * <p>A parser gets the text of the value (a list in a file arrives comma-joined) and throws
 * IllegalArgumentException with the problem only ("unknown MIG strategy \"x\"; expected none,
 * single or mixed"); the origin is prepended by {@link Settings}.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {
  /** What a setting is made of; each wither changes a copy. */
  private static final class Parts<T> implements Cloneable {
    List<String> flags = List.of();
    List<String> env = List.of();
    String field;
    String label = "VALUE";
    String help = "";
    Function<String, T> parser;
    Function<? super T, String> formatter = Setting::plainText;
    T defaultValue;
    String defaultText;
    boolean optionalValue;

    @SuppressWarnings("unchecked")
    Parts<T> copy() {
      try {
        return (Parts<T>) clone();
      } catch (CloneNotSupportedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private final Parts<T> parts;

  private Setting(Parts<T> parts) {
    this.parts = parts;
  }

  private Setting<T> with(java.util.function.Consumer<Parts<T>> change) {
    Parts<T> p = parts.copy();
    change.accept(p);
    return new Setting<>(p);
  }

  /** A setting with a flag (or none: {@code null}) and a parser; no default yet (null). */
  public static <T> Setting<T> of(String flag, Function<String, T> parser) {
    Parts<T> p = new Parts<>();
    p.flags = flag == null ? List.of() : List.of(flag);
    p.parser = Objects.requireNonNull(parser);
    return new Setting<>(p);
  }

  /** A string setting (blank values count as unset, like everywhere). */
  public static Setting<String> string(String flag) {
    return of(flag, s -> s);
  }

  /**
   * A true/false setting; the flag alone means true ({@code --oneshot}), {@code --oneshot=false}
   * turns it off. Accepts true/false, 1/0, yes/no, t/f.
   */
  public static Setting<Boolean> bool(String flag) {
    return of(flag, Parse::bool).label("BOOL").with(p -> p.optionalValue = true);
  }

  /** Another flag name for the same setting (e.g. a short one: {@code -o}). */
  public Setting<T> alias(String flag) {
    return with(
        p -> {
          List<String> f = new java.util.ArrayList<>(p.flags);
          f.add(0, flag);
          p.flags = List.copyOf(f);
        });
  }

  /** Environment variables, the first set wins. */
  public Setting<T> env(String... names) {
    return with(p -> p.env = List.of(names));
  }

  /** The field of the command's config file, e.g. {@code flags.migStrategy}. */
  public Setting<T> field(String path) {
    return with(p -> p.field = path);
  }

  /** The placeholder in usage lines, e.g. {@code STRATEGY}, {@code FILE}, {@code DURATION}. */
  public Setting<T> label(String paramLabel) {
    return with(p -> p.label = paramLabel);
  }

  /** One or two sentences for {@code --help}, without the env, field or default. */
  public Setting<T> help(String text) {
    return with(p -> p.help = text);
  }

  /** The default and how help shows it. */
  public Setting<T> orElse(T value, String shown) {
    return with(
        p -> {
          p.defaultValue = value;
          p.defaultText = shown;
        });
  }

  /**
   * The default, shown by help as the setting's own text for it ({@link #text}), so the value is
   * written once.
   */
  public Setting<T> orElse(T value) {
    return orElse(Objects.requireNonNull(value, "default"), null);
  }

  /** A default described in words (e.g. "the driver root"), computed by the caller when null. */
  public Setting<T> orElseDescribed(String shown) {
    return orElse(null, shown);
  }

  /**
   * How a value is written as text that {@link #parse} reads back (the operator writes a setting's
   * variable with it); by default the value's own text, a list's elements comma-joined.
   */
  public Setting<T> format(Function<? super T, String> formatter) {
    return with(p -> p.formatter = Objects.requireNonNull(formatter));
  }

  /** The value as the setting's text: what its variable is set to. */
  public String text(T value) {
    return parts.formatter.apply(Objects.requireNonNull(value, "value"));
  }

  private static String plainText(Object value) {
    if (value instanceof java.util.Collection<?> c) {
      return c.stream().map(Setting::plainText).collect(java.util.stream.Collectors.joining(","));
    }
    return String.valueOf(value);
  }

  /** The flag names, the long one last; empty for an environment-only setting. */
  public List<String> flags() {
    return parts.flags;
  }

  /** The name messages use for the flag: its longest name. */
  public String flag() {
    return parts.flags.isEmpty() ? null : parts.flags.get(parts.flags.size() - 1);
  }

  public List<String> env() {
    return parts.env;
  }

  /** The variable a renderer sets: the first of {@link #env()}. */
  public String envName() {
    if (parts.env.isEmpty()) {
      throw new IllegalStateException(name() + " has no environment variable");
    }
    return parts.env.get(0);
  }

  /** The config-file field, or null. */
  public String field() {
    return parts.field;
  }

  public String label() {
    return parts.label;
  }

  public String help() {
    return parts.help;
  }

  public T defaultValue() {
    return parts.defaultValue;
  }

  /** The default as help shows it, or null for none. */
  public String defaultText() {
    if (parts.defaultText == null && parts.defaultValue != null) {
      return text(parts.defaultValue);
    }
    return parts.defaultText;
  }

  /** True for a flag that may stand alone (booleans). */
  public boolean optionalValueFlag() {
    return parts.optionalValue;
  }

  /** Parses a value; IllegalArgumentException says what is wrong with it. */
  public T parse(String text) {
    return parts.parser.apply(text);
  }

  /** A name for the setting in messages that concern it as a whole. */
  public String name() {
    if (flag() != null) {
      return flag();
    }
    if (!parts.env.isEmpty()) {
      return parts.env.get(0);
    }
    return parts.field;
  }

  @Override
  public String toString() {
    return name();
  }
}
