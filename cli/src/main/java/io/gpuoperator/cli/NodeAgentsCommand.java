package io.gpuoperator.cli;

import io.gpuoperator.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpu-operator node-agents}: several node agents in one JVM, so that a GPU node pays for one
 * runtime (heap, JIT, class metadata) instead of one per agent. Each agent runs its own subcommand
 * on its own thread and is restarted on its own when it ends, with the kubelet's back-off (10 s
 * doubling to 5 minutes, reset after 10 minutes of running).
 */
@Command(
    name = "node-agents",
    header = "Runs several node agents in one JVM, each restarted on its own when it ends.",
    description = {
      "Each --run is one agent: its subcommand and flags, separated by spaces, e.g."
          + " --run 'feature-discovery --mig-strategy=single' --run 'device-plugin'. Agents read"
          + " the process's environment (NODE_NAME, ...) as they do when run alone."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:stopped by a signal", "2:bad input: a --run that does not parse"})
public class NodeAgentsCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgentsCommand.class);

  /** The agents that may share a JVM: long-running node agents of this binary. */
  public static final Set<String> AGENTS =
      Set.of(
          "feature-discovery",
          "device-plugin",
          "dra-plugin",
          "exporter",
          "mig-manager",
          "pci-discovery");

  @Option(
      names = "--run",
      required = true,
      paramLabel = "'AGENT [FLAGS]'",
      description =
          "An agent to run and its flags: feature-discovery, device-plugin, dra-plugin,"
              + " exporter, mig-manager or pci-discovery.")
  List<String> runs;

  @Option(
      names = "--restart-delay-seconds",
      paramLabel = "N",
      description = "First restart delay of an agent that ended (doubles up to 5 minutes; 10).")
  long restartDelaySeconds = 10;

  /** Set when the JVM shuts down: agents that end then are not restarted. */
  private volatile boolean stopping;

  @Override
  public Integer call() throws Exception {
    if (restartDelaySeconds < 0) {
      throw new ConfigException("--restart-delay-seconds must be >= 0, got " + restartDelaySeconds);
    }
    List<String[]> agents = new ArrayList<>();
    for (String run : runs) {
      String[] args = run.trim().split("\\s+");
      if (!AGENTS.contains(args[0])) {
        throw new ConfigException(
            "--run '"
                + run
                + "': '"
                + args[0]
                + "' is not a node agent that can share a JVM (one of "
                + String.join(", ", AGENTS.stream().sorted().toList())
                + ")");
      }
      try {
        GpuOperatorCommand.commandLine().parseArgs(args);
      } catch (CommandLine.ParameterException e) {
        throw new ConfigException("--run '" + run + "': " + e.getMessage(), e);
      }
      agents.add(args);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopping = true, "node-agents-stop"));
    List<Thread> threads = new ArrayList<>();
    for (String[] args : agents) {
      Thread t = new Thread(() -> supervise(args), "agent-" + args[0]);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    LOG.info("node-agents: running {}", agents.stream().map(a -> a[0]).toList());
    try {
      // Until SIGTERM: the JVM's shutdown runs the agents' own hooks.
      new CountDownLatch(1).await();
      return 0;
    } finally {
      // Stopped from within (a test, an embedding): no agent is restarted any more.
      threads.forEach(Thread::interrupt);
    }
  }

  /** Runs one agent until the JVM stops, restarting it with back-off whenever it ends. */
  private void supervise(String[] args) {
    Backoff backoff =
        new Backoff(
            Duration.ofSeconds(restartDelaySeconds), Duration.ofMinutes(5), Duration.ofMinutes(10));
    while (!Thread.currentThread().isInterrupted()) {
      long started = System.nanoTime();
      int code;
      try {
        code = GpuOperatorCommand.commandLine().execute(args);
      } catch (RuntimeException | Error e) {
        LOG.error("agent {} failed: {}", args[0], e.toString(), e);
        code = 1;
      }
      if (stopping) {
        LOG.info("agent {} stopped (exit code {})", args[0], code);
        return;
      }
      Duration delay = backoff.next(Duration.ofNanos(System.nanoTime() - started));
      LOG.warn(
          "agent {} ended with exit code {}; restarting it in {} s ({})",
          args[0],
          code,
          delay.toSeconds(),
          Arrays.toString(args));
      try {
        Thread.sleep(delay.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * The kubelet's crash-loop back-off: the first restart after {@code base}, doubling to {@code
   * max}; a run longer than {@code reset} starts over.
   */
  static final class Backoff {
    private final Duration base;
    private final Duration max;
    private final Duration reset;
    private Duration current;

    Backoff(Duration base, Duration max, Duration reset) {
      this.base = base;
      this.max = max;
      this.reset = reset;
    }

    /** The delay before the next start, after a run that lasted {@code ran}. */
    Duration next(Duration ran) {
      if (current == null || ran.compareTo(reset) >= 0) {
        current = base;
      } else {
        current = current.multipliedBy(2);
        if (current.compareTo(max) > 0) {
          current = max;
        }
      }
      return current;
    }
  }
}
