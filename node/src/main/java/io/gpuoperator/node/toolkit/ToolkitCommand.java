package io.gpuoperator.node.toolkit;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.IoErrors;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.DriverReady;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code gpu-operator toolkit}: as NVIDIA's toolkit container, configures the node's container
 * runtime and writes the CDI spec, waits for SIGTERM, then reverts both. {@code toolkit install}
 * and {@code toolkit uninstall} do one step and exit.
 */
@Command(
    name = "toolkit",
    mixinStandardHelpOptions = true,
    description = {
      "Configures containerd or CRI-O with NVIDIA's runtimes and writes the CDI spec; on SIGTERM"
          + " reverts both (the container toolkit DaemonSet's agent).",
      "Precedence: flag, then environment variable (the original toolkit container's), then"
          + " default."
    },
    modelTransformer = ToolkitOptions.class,
    subcommands = {ToolkitCommand.Install.class, ToolkitCommand.Uninstall.class})
public class ToolkitCommand extends AgentCommand {
  private static final Logger LOG = LoggerFactory.getLogger(ToolkitCommand.class);

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    ToolkitSettings s;
    try {
      // Where the validator found the driver, over the DaemonSet's guess (DriverReady).
      s = ToolkitSettings.resolve(ToolkitOptions.flags(spec), DriverReady.overlay(env));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e); // one line and exit 2, as every command
    }
    ToolkitAgent agent = new ToolkitAgent(s, ToolkitOptions.backend(s)::open);
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch reverted = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              try {
                // Give the revert time to finish before the JVM exits.
                reverted.await(90, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "toolkit-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      agent.run(stop, () -> err.println("toolkit: configured " + s.runtime()));
      return 0;
    } catch (ConfigFileException | IllegalArgumentException e) {
      err.println("toolkit: " + e.getMessage());
      return 1;
    } catch (java.io.IOException e) {
      err.println("toolkit: " + IoErrors.explain(e));
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      reverted.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        LOG.debug("shutting down: {}", e.getMessage());
      }
    }
  }

  /**
   * One step of the toolkit, then exit. Its flags are the parent's (inherited), so they count
   * before or after the subcommand's name; the environment is the parent's too.
   */
  abstract static class Step implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.ParentCommand ToolkitCommand parent;

    abstract List<String> step(ToolkitAgent agent) throws Exception;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      String name = spec.name();
      InheritedFlags.refuseAmbiguous(parent.spec, spec);
      Map<ToolkitSettings.Setting, String> flags = ToolkitOptions.flags(parent.spec);
      if (flags.containsKey(ToolkitSettings.Setting.NO_DAEMON)) {
        throw new ConfigException(
            "--no-daemon is for toolkit without a subcommand; toolkit " + name + " always exits");
      }
      ToolkitSettings s;
      try {
        s = ToolkitSettings.resolve(flags, parent.env);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage(), e); // one line and exit 2, as every command
      }
      try {
        List<String> done = step(new ToolkitAgent(s, ToolkitOptions.backend(s)::open));
        done.forEach(d -> err.println("toolkit " + name + ": " + d));
        if (done.isEmpty()) {
          err.println("toolkit " + name + ": nothing to do");
        }
        return 0;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      } catch (Exception e) {
        err.println(
            "toolkit "
                + name
                + ": "
                + (e instanceof java.io.IOException io ? IoErrors.explain(io) : e.getMessage()));
        return 1;
      }
    }
  }

  /** {@code toolkit install}. */
  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description =
          "Configures the runtime (and writes the CDI spec with --cdi-enabled), then exits.")
  public static class Install extends Step {
    @Override
    List<String> step(ToolkitAgent agent) throws Exception {
      return agent.install();
    }
  }

  /** {@code toolkit uninstall}. */
  @Command(
      name = "uninstall",
      mixinStandardHelpOptions = true,
      description = "Reverts exactly what install added (and removes the CDI spec), then exits.")
  public static class Uninstall extends Step {
    @Override
    List<String> step(ToolkitAgent agent) throws Exception {
      return agent.uninstall();
    }
  }
}
