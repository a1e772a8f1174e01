package io.gpuoperator.config.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The conventions every command of the executable shares, applied once to the whole command tree:
 * {@code -h/--help} and {@code -V/--version} on every subcommand, {@code -v/--verbose} (stack
 * traces on failure) where a command has no verbose flag of its own, one-line errors and exit codes
 * by kind ({@link Failures}), and usage help that shows defaults.
 */
public final class CommandLines {
  private CommandLines() {}

  /** Applies the conventions to {@code root} and every subcommand below it. */
  public static CommandLine configure(CommandLine root) {
    Failures failures = new Failures();
    root.setExecutionExceptionHandler(failures);
    root.setParameterExceptionHandler(failures);
    root.setCaseInsensitiveEnumValuesAllowed(true);
    // picocli's own Path conversion reports a bad path with Java type names.
    root.registerConverter(
        java.nio.file.Path.class,
        s -> {
          try {
            return io.gpuoperator.config.Parse.path(s);
          } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
          }
        });
    CommandLine.IVersionProvider version = root.getCommandSpec().versionProvider();
    apply(root, version);
    return root;
  }

  private static void apply(CommandLine cl, CommandLine.IVersionProvider version) {
    CommandSpec spec = cl.getCommandSpec();
    if (!(spec.userObject() instanceof CommandLine.HelpCommand)) {
      if (spec.optionsMap().get("--help") == null) {
        spec.mixinStandardHelpOptions(true);
      }
      if (spec.versionProvider() == null && version != null) {
        spec.versionProvider(version);
      }
      if (spec.findOption(Failures.VERBOSE) == null && spec.parent() != null) {
        spec.addOption(
            OptionSpec.builder("-v", Failures.VERBOSE)
                .description("Print the stack trace of a failure.")
                .arity("0")
                .type(boolean.class)
                .build());
      }
    }
    spec.usageMessage().showDefaultValues(true);
    for (CommandLine sub : cl.getSubcommands().values()) {
      if (sub.getCommandSpec().parent() == spec) {
        apply(sub, version);
      }
    }
  }
}
