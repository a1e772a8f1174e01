package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.NodeAgentOptions;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gpu-operator validator}: one step of the node's validation chain. */
@Command(
    name = "validator",
    modelTransformer = ValidatorCommand.Options.class,
    header = "Validates one layer of this node's GPU stack and writes its marker file.",
    description = {
      "The layers in order: driver (driver-ready), toolkit (toolkit-ready), cuda (cuda-ready),"
          + " plugin (plugin-ready); GPUDirect: nvidia-fs, gdrcopy, nvidia-peermem, mofed;"
          + " sandbox: cc-manager, vfio-pci, vgpu-manager, vgpu-devices. A step whose feature is"
          + " off on this node is skipped (exit 0, no marker). Flags override the environment"
          + " variables named below."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:valid, the marker was written; or skipped, its feature off",
      "1:validation failed (the reason on stderr)",
      "2:bad input: a flag or variable (the message names it)"
    })
public class ValidatorCommand extends AgentCommand {
  /** The options: the validator's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("Validation:", ValidatorConfig.ALL), NodeAgentOptions.GROUP);
    }
  }

  private final Supplier<KubernetesClient> client;
  private final Function<ValidatorConfig, GpuBackendOpener> opener;

  /** The command as the CLI runs it: process environment, in-cluster/kubeconfig client. */
  public ValidatorCommand() {
    this(System.getenv(), null, null);
  }

  /**
   * The command with its environment, client and backend given (tests and the simulator's
   * in-process agents); a null client means one from the kubeconfig, created on first use, and a
   * null opener the backend the settings choose.
   */
  public ValidatorCommand(
      Map<String, String> env,
      Supplier<KubernetesClient> client,
      Function<ValidatorConfig, GpuBackendOpener> opener) {
    withEnv(env);
    this.client = client;
    this.opener = opener;
  }

  @Override
  public Integer call() throws Exception {
    Settings settings = SettingOptions.settings(spec, env, null);
    ValidatorConfig config =
        HostDriver.resolve(
            ValidatorConfig.resolve(settings),
            settings.isGiven(ValidatorConfig.DRIVER_ROOT),
            HostDriver.HOST_ROOT_MOUNT);
    if (config.component() == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "missing --component NAME (driver, toolkit, cuda, plugin ...) or COMPONENT");
    }
    KubernetesClient[] created = new KubernetesClient[1];
    Supplier<KubernetesClient> clients =
        client != null
            ? client
            : () ->
                created[0] == null
                    ? (created[0] = NodeAgentOptions.client(settings, "validator"))
                    : created[0];
    GpuBackendOpener backends =
        opener != null ? opener.apply(config) : new DefaultBackendOpener(config, settings);
    try {
      Verdict verdict = new Validator(config, backends, clients).run();
      spec.commandLine()
          .getOut()
          .println(
              config.component().cliName()
                  + (verdict.isSkipped()
                      ? " validation skipped: " + verdict.skipped()
                      : " validation passed: "
                          + config.validationsDir().resolve(verdict.marker())));
      return 0;
    } catch (ValidationException e) {
      spec.commandLine()
          .getErr()
          .println(
              spec.qualifiedName()
                  + ": "
                  + config.component().cliName()
                  + " validation failed: "
                  + e.getMessage());
      return 1;
    } finally {
      if (created[0] != null) {
        created[0].close();
      }
    }
  }
}
