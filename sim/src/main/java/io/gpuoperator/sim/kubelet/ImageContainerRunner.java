package io.gpuoperator.sim.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

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
    if (program == null) {
      return new DeclaredContainerRunner(
              runners.declared(node, ctx.container(), ctx.init(), ep, ctx.env()))
          .start(ctx);
    }
    InProcessAgent agent = program.agent();
    InProcessAgent withEntrypoint;
    if (agent instanceof InProcessService service) {
      // Still a service: the entrypoint's wait holds a start thread, the running program none.
      withEntrypoint = (InProcessService) agentCtx -> service.start(afterEntrypoint(ep, agentCtx));
    } else {
      withEntrypoint = agentCtx -> agent.run(afterEntrypoint(ep, agentCtx));
    }
    return new InProcessContainerRunner(program.name(), withEntrypoint, program.readyOnStart())
        .start(ctx, ep.args());
  }

  /**
   * Waits for the entrypoint's marker files; the context the program then gets (with {@code
   * driver-ready}'s lines when the entrypoint sources it).
   */
  private static AgentContext afterEntrypoint(Entrypoint ep, AgentContext agentCtx)
      throws IOException, InterruptedException {
    for (String marker : ep.waits()) {
      Path file = agentCtx.dirs().validations().resolve(marker);
      while (!Files.exists(file)) {
        Thread.sleep(DeclaredContainerRunner.POLL.toMillis());
      }
    }
    return ep.sourcesDriverReady() ? agentCtx.withEnv(driverReady(agentCtx)) : agentCtx;
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
