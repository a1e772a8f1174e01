package io.gpuoperator.sim.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a container of NVIDIA's images by what its image runs under the original's contract: the
 * entrypoint's marker-file protocol first (wait for {@code driver-ready}, export its lines), then
 * the program. Programs this project reimplements (the validator, the device plugin, feature
 * discovery, config-manager) run as our code in-process; the others by declared behaviour.
 */
final class ImageContainerRunner implements ContainerRunner {
  private final ContainerRunners runners;
  private final NodeDescription node;

  ImageContainerRunner(ContainerRunners runners, NodeDescription node) {
    this.runners = runners;
    this.node = node;
  }

  @Override
  public ContainerProcess start(ContainerContext ctx) {
    Entrypoint ep = Entrypoint.of(ctx);
    InProcessContainerRunner program = ep.program() == null ? null : runners.program(ep.program());
    if (program == null && ep.gate() != null) {
      // A script that decides by a marker's content whether to wait on (the sandbox device
      // plugins' init containers): run its logic, then end as the script does.
      InProcessAgent script =
          agentCtx -> {
            afterEntrypoint(ep, agentCtx);
            return 0;
          };
      return new InProcessContainerRunner("entrypoint", script, false).start(ctx, ep.args());
    }
    if (program == null) {
      return new DeclaredContainerRunner(
              runners.declared(node, ctx.container(), ctx.init(), ep, ctx.env()))
          .start(ctx);
    }
    InProcessAgent agent = program.agent();
    InProcessAgent withEntrypoint;
    if (agent instanceof InProcessService service) {
      // Still a service: the entrypoint's wait holds a start thread, the running program none.
      // (No manifest gates a service's script; one that ended would leave it running unready.)
      withEntrypoint =
          (InProcessService)
              agentCtx -> {
                AgentContext after = afterEntrypoint(ep, agentCtx);
                return after == null ? () -> {} : service.start(after);
              };
    } else if (agent instanceof InProcessTask task && ep.waits().isEmpty() && ep.gate() == null) {
      // Still a task: an entrypoint without marker waits does not wait (it may read driver-ready);
      // one that waits runs as a plain agent below, on a thread of its own (a task's begin must
      // not wait).
      withEntrypoint =
          (InProcessTask)
              agentCtx -> {
                AgentContext after = afterEntrypoint(ep, agentCtx);
                return after == null ? CompletableFuture.completedFuture(0) : task.begin(after);
              };
    } else {
      withEntrypoint =
          agentCtx -> {
            AgentContext after = afterEntrypoint(ep, agentCtx);
            return after == null ? 0 : agent.run(after);
          };
    }
    return new InProcessContainerRunner(program.name(), withEntrypoint, program.readyOnStart())
        .start(ctx, ep.args());
  }

  /**
   * Waits for the entrypoint's marker files and follows its gate; the context the program then gets
   * (with {@code driver-ready}'s lines when the entrypoint sources it), or null when the gate ended
   * the script (exit 0).
   */
  private static AgentContext afterEntrypoint(Entrypoint ep, AgentContext agentCtx)
      throws IOException, InterruptedException {
    Path validations = agentCtx.dirs().validations();
    awaitAll(validations, ep.waits());
    if (ep.gate() != null) {
      Path marker = validations.resolve(ep.gate().marker());
      String content = Files.exists(marker) ? Files.readString(marker).trim() : "";
      if (!content.equals(ep.gate().value())) {
        return null;
      }
      awaitAll(validations, ep.gate().waits());
    }
    return ep.sourcesDriverReady() ? agentCtx.withEnv(driverReady(agentCtx)) : agentCtx;
  }

  private static void awaitAll(Path validations, java.util.List<String> waits)
      throws InterruptedException {
    for (String wait : waits) {
      while (!Entrypoint.present(validations, wait)) {
        Thread.sleep(DeclaredContainerRunner.POLL.toMillis());
      }
    }
  }

  /** The KEY=value lines of {@code driver-ready}, as the entrypoints export them. */
  private static Map<String, String> driverReady(AgentContext ctx) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    for (String line : Files.readAllLines(ctx.dirs().validations().resolve("driver-ready"))) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return env;
  }
}
