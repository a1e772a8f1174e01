package io.gpuoperator.cli;

import io.gpuoperator.cli.images.ImagesCommand;
import io.gpuoperator.cli.simulate.SimulateCommand;
import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.cdi.CdiCommand;
import io.gpuoperator.node.deviceplugin.DevicePluginCommand;
import io.gpuoperator.node.discovery.FeatureDiscoveryCommand;
import io.gpuoperator.node.discovery.PciDiscoveryCommand;
import io.gpuoperator.node.dra.DraPluginCommand;
import io.gpuoperator.node.exporter.ExporterCommand;
import io.gpuoperator.node.mig.MigCommand;
import io.gpuoperator.node.mig.MigManagerCommand;
import io.gpuoperator.node.toolkit.ToolkitCommand;
import io.gpuoperator.node.validator.ValidatorCommand;
import io.gpuoperator.operator.plan.PlanCommand;
import io.gpuoperator.operator.runtime.OperatorCommand;
import java.util.Map;
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
    header = "The Kubernetes operator and node agents for NVIDIA GPUs.",
    description = {
      "Run a command with --help for its flags; every command exits 0 when done, 1 when the"
          + " environment failed and 2 on bad input, with a one-line message (-v adds the stack"
          + " trace)."
    },
    commandListHeading = "%nCommands:%n",
    subcommands = {
      SimulateCommand.class,
      VersionCommand.class,
      OperatorCommand.class,
      PlanCommand.class,
      ImagesCommand.class,
      FeatureDiscoveryCommand.class,
      PciDiscoveryCommand.class,
      DevicePluginCommand.class,
      DraPluginCommand.class,
      ExporterCommand.class,
      MigManagerCommand.class,
      MigCommand.class,
      ValidatorCommand.class,
      ToolkitCommand.class,
      NodeAgentsCommand.class,
      CdiCommand.class,
      CommandLine.HelpCommand.class
    })
public class GpuOperatorCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * A configured command line, shared by main and tests: every subcommand has {@code --help},
   * {@code -V} and {@code -v}, and ends a failure with one line and an exit code by kind ({@link
   * CommandLines}).
   */
  public static CommandLine commandLine() {
    return CommandLines.configure(new CommandLine(new GpuOperatorCommand()));
  }

  /**
   * The same command line with {@code env} as every agent's environment instead of the process's
   * ({@link AgentCommand#withEnv}), so a test can give each agent the same bad value as a flag and
   * as a variable.
   */
  public static CommandLine commandLine(Map<String, String> env) {
    CommandLine.IFactory defaults = CommandLine.defaultFactory();
    CommandLine.IFactory withEnv =
        new CommandLine.IFactory() {
          @Override
          public <K> K create(Class<K> cls) throws Exception {
            K command = defaults.create(cls);
            if (command instanceof AgentCommand agent) {
              agent.withEnv(env);
            }
            return command;
          }
        };
    return CommandLines.configure(new CommandLine(GpuOperatorCommand.class, withEnv));
  }
}
