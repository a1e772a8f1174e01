package io.gpuoperator.node.toolkit;

import io.gpuoperator.config.ConfigException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Refuses an inherited flag given both before and after a subcommand's name. picocli binds both to
 * one field and keeps the last silently, where a flag repeated in one place is refused.
 */
final class InheritedFlags {
  private InheritedFlags() {}

  /** Throws naming the first flag that {@code parent} and {@code sub} were both given. */
  static void refuseAmbiguous(CommandSpec parent, CommandSpec sub) {
    ParseResult before = parent.commandLine().getParseResult();
    ParseResult after = sub.commandLine().getParseResult();
    if (before == null || after == null) {
      return;
    }
    for (OptionSpec o : after.matchedOptions()) {
      if (o.inherited() && before.hasMatchedOption(o.longestName())) {
        throw new ConfigException(
            o.longestName()
                + " was given both before and after '"
                + sub.name()
                + "'; give it once");
      }
    }
  }
}
