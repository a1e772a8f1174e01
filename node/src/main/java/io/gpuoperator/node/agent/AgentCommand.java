package io.gpuoperator.node.agent;

import io.gpuoperator.config.zap.ZapOptions;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * What every node agent's command has: picocli's spec, controller-runtime's {@code --zap-*} flags
 * and the environment it reads. The environment is the process's unless {@link #withEnv} gives
 * another, so tests and the simulator run every agent on a map instead of the process's variables.
 * Picocli finds the annotated fields here as it does in the command itself.
 */
public abstract class AgentCommand implements Callable<Integer> {
  @CommandLine.Spec protected CommandLine.Model.CommandSpec spec;

  /** controller-runtime's --zap-* flags; the process's entry point applies them. */
  @CommandLine.Mixin protected ZapOptions zap;

  /** The variables the command reads. */
  protected Map<String, String> env = System.getenv();

  /** This command, reading {@code env} instead of the process's environment. */
  public AgentCommand withEnv(Map<String, String> env) {
    this.env = env;
    return this;
  }
}
