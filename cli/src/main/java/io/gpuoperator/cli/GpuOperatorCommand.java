package io.gpuoperator.cli;

import io.gpuoperator.cli.simulate.SimulateCommand;
import io.gpuoperator.node.deviceplugin.DevicePluginCommand;
import io.gpuoperator.node.discovery.FeatureDiscoveryCommand;
import io.gpuoperator.node.exporter.ExporterCommand;
import io.gpuoperator.node.mig.MigCommand;
import io.gpuoperator.node.mig.MigManagerCommand;
import io.gpuoperator.node.validator.ValidatorCommand;
import io.gpuoperator.operator.plan.PlanCommand;
import io.gpuoperator.operator.runtime.OperatorCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The top-level command. Only subcommands that work are registered here, so {@code --help} never
 * lists something that is not implemented.
 */
@Command(
    name = "gpu-operator",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "Kubernetes operator and node agents for NVIDIA GPUs.",
    subcommands = {
      SimulateCommand.class,
      VersionCommand.class,
      OperatorCommand.class,
      PlanCommand.class,
      FeatureDiscoveryCommand.class,
      DevicePluginCommand.class,
      ExporterCommand.class,
      MigManagerCommand.class,
      MigCommand.class,
      ValidatorCommand.class,
      CommandLine.HelpCommand.class
    })
public class GpuOperatorCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A configured command line, shared by main and tests. */
  public static CommandLine commandLine() {
    return new CommandLine(new GpuOperatorCommand()).setCaseInsensitiveEnumValuesAllowed(true);
  }
}
