package io.gpuoperator.node.toolkit;

import io.gpuoperator.node.cdi.GpuBackendChoice;
import io.gpuoperator.node.toolkit.ToolkitSettings.Setting;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;

/**
 * The toolkit's flags, made from its {@link Setting}s (flag, placeholder, help and variables are
 * declared there once). They are declared on {@code toolkit} and inherited by {@code install} and
 * {@code uninstall}, so {@code toolkit --config X install} and {@code toolkit install --config X}
 * set the same value (two copies, one per command, once let a flag before the subcommand go unread
 * and the host's default config be written instead); {@code --no-daemon} is {@code toolkit}'s own.
 */
public class ToolkitOptions implements IModelTransformer {
  @Override
  public CommandSpec transform(CommandSpec spec) {
    for (Setting s : Setting.values()) {
      if (s.isFlag() && spec.findOption(s.flag()) == null) {
        spec.addOption(option(s));
      }
    }
    return spec;
  }

  /** The option of a setting; its help names the variables. */
  static OptionSpec option(Setting s) {
    List<String> description = new ArrayList<>();
    description.add(s.help);
    description.add("Env: " + String.join(", ", s.env()));
    OptionSpec.Builder b =
        OptionSpec.builder(s.flag())
            .paramLabel(s.label)
            .description(description.toArray(new String[0]))
            .type(String.class)
            .scopeType(s == Setting.NO_DAEMON ? ScopeType.LOCAL : ScopeType.INHERIT);
    if (s.bool()) {
      b.arity("0..1").fallbackValue("true");
    }
    return b.build();
  }

  /**
   * The flags given to {@code toolkit} (before or after its subcommand's name: an inherited
   * option's value is one), by setting.
   */
  static Map<Setting, String> flags(CommandSpec toolkit) {
    Map<Setting, String> m = new EnumMap<>(Setting.class);
    for (Setting s : Setting.values()) {
      OptionSpec o = s.isFlag() ? toolkit.findOption(s.flag()) : null;
      if (o != null && o.getValue() != null) {
        m.put(s, o.getValue());
      }
    }
    return m;
  }

  /** The GPU backend for the CDI spec. */
  static GpuBackendChoice backend(ToolkitSettings s) {
    return new GpuBackendChoice(s.backend(), s.nodeProfile(), s.nvmlLibrary(), s.nodeName());
  }
}
