package io.gpuoperator.config.cli;

import io.gpuoperator.config.Document;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Turns a command's {@link Setting}s into picocli options, so a setting is declared once: its flag,
 * placeholder, help, environment variables, config-file field and default all come from the
 * {@code Setting}, and help shows them in one style. A command lists its settings in groups (each a
 * titled section of {@code --help}) and names a subclass as its model transformer:
 *
 * <pre>{@code
 * @Command(name = "device-plugin", modelTransformer = DevicePluginCommand.Options.class, ...)
 * public class DevicePluginCommand implements Callable<Integer> {
 *   public static final class Options extends SettingOptions {
 *     public Options() {
 *       super(group("Device plugin:", DevicePluginSettings.ALL), NodeAgentOptions.GROUP);
 *     }
 *   }
 *   @Spec CommandSpec spec;
 *
 *   public Integer call() {
 *     Settings settings = SettingOptions.settings(spec, System.getenv(), configFileOrNull);
 *     MigStrategy mig = settings.get(DevicePluginSettings.MIG_STRATEGY);
 *     ...
 * }</pre>
 *
 * <p>The option values are read from picocli's parse result as the user typed them; {@link
 * Settings} parses them, so a bad value is reported the same way whether it came from a flag, a
 * variable or the file. Options that are not settings (e.g. {@code --help}) stay plain picocli
 * annotations.
 */
public abstract class SettingOptions implements CommandLine.IModelTransformer {
  /**
   * A titled section of {@code --help}.
   *
   * @param heading e.g. {@code "GPU backend and node:"}
   * @param settings the settings shown there (those without a flag are left out of help)
   */
  public record Group(String heading, List<Setting<?>> settings) {
    public Group {
      settings = List.copyOf(settings);
    }
  }

  private final List<Group> groups;

  protected SettingOptions(Group... groups) {
    this.groups = List.of(groups);
  }

  /** A group of settings for {@link #SettingOptions(Group...)}. */
  public static Group group(String heading, List<? extends Setting<?>> settings) {
    return new Group(heading, new ArrayList<>(settings));
  }

  @Override
  public CommandSpec transform(CommandSpec spec) {
    for (Group g : groups) {
      ArgGroupSpec.Builder group =
          ArgGroupSpec.builder().heading(g.heading() + "%n").exclusive(false).multiplicity("0..1");
      int added = 0;
      for (Setting<?> s : g.settings()) {
        if (s.flags().isEmpty() || spec.findOption(s.flag()) != null) {
          continue;
        }
        group.addArg(option(s));
        added++;
      }
      if (added > 0) {
        spec.addArgGroup(group.build());
      }
    }
    return spec;
  }

  /** The picocli option of a setting; its help names the variables, the field and the default. */
  static OptionSpec option(Setting<?> s) {
    List<String> lines = new ArrayList<>();
    lines.add(s.help());
    List<String> sources = new ArrayList<>();
    if (!s.env().isEmpty()) {
      sources.add("Env: " + String.join(", ", s.env()));
    }
    if (s.field() != null) {
      sources.add("File: " + s.field());
    }
    if (!sources.isEmpty()) {
      lines.add(String.join("; ", sources));
    }
    OptionSpec.Builder b =
        OptionSpec.builder(s.flags().toArray(new String[0]))
            .paramLabel(s.label())
            .description(lines.toArray(new String[0]))
            .type(String.class);
    if (s.defaultText() != null) {
      // Shown by picocli ("Default: …"); never read back: values come from the parse result.
      b.defaultValue(s.defaultText()).showDefaultValue(CommandLine.Help.Visibility.ALWAYS);
    }
    if (s.optionalValueFlag()) {
      b.arity("0..1").fallbackValue("true");
    }
    return b.build();
  }

  /**
   * The values of the options the user gave, as typed, keyed by each option's longest name (a flag
   * that may stand alone and was given without a value reads {@code true}).
   */
  public static Map<String, String> flags(ParseResult result) {
    Map<String, String> out = new HashMap<>();
    if (result == null) {
      return out;
    }
    for (OptionSpec o : result.matchedOptions()) {
      List<String> values = o.stringValues();
      String v = values.isEmpty() ? o.fallbackValue() : values.get(values.size() - 1);
      if (v != null && !(CommandLine.Option.NULL_VALUE.equals(v))) {
        out.put(o.longestName(), v);
      }
    }
    return out;
  }

  /** The settings of a command as it was invoked: its flags, this environment, this file. */
  public static Settings settings(CommandSpec spec, Map<String, String> env, Document file) {
    return Settings.of(flags(spec.commandLine().getParseResult()), env, file);
  }
}
