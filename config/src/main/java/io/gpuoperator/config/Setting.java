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
  private final List<String> flags;
  private final List<String> env;
  private final String field;
  private final String label;
  private final String help;
  private final Function<String, T> parser;
  private final T defaultValue;
  private final String defaultText;
  private final boolean optionalValue;

  private Setting(
      List<String> flags,
      List<String> env,
      String field,
      String label,
      String help,
      Function<String, T> parser,
      T defaultValue,
      String defaultText,
      boolean optionalValue) {
    this.flags = List.copyOf(flags);
    this.env = List.copyOf(env);
    this.field = field;
    this.label = label;
    this.help = help;
    this.parser = Objects.requireNonNull(parser);
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.optionalValue = optionalValue;
  }

  /** A setting with a flag (or none: {@code null}) and a parser; no default yet (null). */
  public static <T> Setting<T> of(String flag, Function<String, T> parser) {
    return new Setting<>(
        flag == null ? List.of() : List.of(flag),
        List.of(),
        null,
        "VALUE",
        "",
        parser,
        null,
        null,
        false);
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
    return of(flag, Parse::bool).label("BOOL").optionalValue();
  }

  /** Another flag name for the same setting (e.g. a short one: {@code -o}). */
  public Setting<T> alias(String flag) {
    List<String> f = new java.util.ArrayList<>(flags);
    f.add(0, flag);
    return new Setting<>(
        f, env, field, label, help, parser, defaultValue, defaultText, optionalValue);
  }

  /** Environment variables, the first set wins. */
  public Setting<T> env(String... names) {
    return new Setting<>(
        flags,
        List.of(names),
        field,
        label,
        help,
        parser,
        defaultValue,
        defaultText,
        optionalValue);
  }

  /** The field of the command's config file, e.g. {@code flags.migStrategy}. */
  public Setting<T> field(String path) {
    return new Setting<>(
        flags, env, path, label, help, parser, defaultValue, defaultText, optionalValue);
  }

  /** The placeholder in usage lines, e.g. {@code STRATEGY}, {@code FILE}, {@code DURATION}. */
  public Setting<T> label(String paramLabel) {
    return new Setting<>(
        flags, env, field, paramLabel, help, parser, defaultValue, defaultText, optionalValue);
  }

  /** One or two sentences for {@code --help}, without the env, field or default. */
  public Setting<T> help(String text) {
    return new Setting<>(
        flags, env, field, label, text, parser, defaultValue, defaultText, optionalValue);
  }

  /** The default and how help shows it. */
  public Setting<T> orElse(T value, String shown) {
    return new Setting<>(flags, env, field, label, help, parser, value, shown, optionalValue);
  }

  /** A default described in words (e.g. "the driver root"), computed by the caller when null. */
  public Setting<T> orElseDescribed(String shown) {
    return new Setting<>(flags, env, field, label, help, parser, null, shown, optionalValue);
  }

  private Setting<T> optionalValue() {
    return new Setting<>(flags, env, field, label, help, parser, defaultValue, defaultText, true);
  }

  /** The flag names, the long one last; empty for an environment-only setting. */
  public List<String> flags() {
    return flags;
  }

  /** The name messages use for the flag: its longest name. */
  public String flag() {
    return flags.isEmpty() ? null : flags.get(flags.size() - 1);
  }

  public List<String> env() {
    return env;
  }

  /** The config-file field, or null. */
  public String field() {
    return field;
  }

  public String label() {
    return label;
  }

  public String help() {
    return help;
  }

  public T defaultValue() {
    return defaultValue;
  }

  /** The default as help shows it, or null for none. */
  public String defaultText() {
    return defaultText;
  }

  /** True for a flag that may stand alone (booleans). */
  public boolean optionalValueFlag() {
    return optionalValue;
  }

  /** Parses a value; IllegalArgumentException says what is wrong with it. */
  public T parse(String text) {
    return parser.apply(text);
  }

  /** A name for the setting in messages that concern it as a whole. */
  public String name() {
    if (flag() != null) {
      return flag();
    }
    if (!env.isEmpty()) {
      return env.get(0);
    }
    return field;
  }

  @Override
  public String toString() {
    return name();
  }
}
