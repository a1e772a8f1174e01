package io.gpuoperator.node.cdi;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gpu-operator cdi}: Container Device Interface specs. */
@Command(
    name = "cdi",
    mixinStandardHelpOptions = true,
    description = "Container Device Interface (CDI) specs for this node's GPUs.",
    subcommands = {CdiGenerateCommand.class})
public class CdiCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }
}
