package io.gpuoperator.sim.kubelet;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this project's real agent code in a thread as a simulated container. The container is ready
 * once the agent says so (or at once when {@code readyOnStart}); it exits with the agent's return
 * value, 1 on an exception, 137 when killed.
 */
public final class InProcessContainerRunner implements ContainerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessContainerRunner.class);

  private final String name;
  private final InProcessAgent agent;
  private final boolean readyOnStart;

  public InProcessContainerRunner(String name, InProcessAgent agent, boolean readyOnStart) {
    this.name = name;
    this.agent = agent;
    this.readyOnStart = readyOnStart;
  }

  public String name() {
    return name;
  }

  InProcessAgent agent() {
    return agent;
  }

  boolean readyOnStart() {
    return readyOnStart;
  }

  @Override
  public ContainerProcess start(ContainerContext ctx) {
    List<String> args = ContainerRunners.agentArgs(ctx.commandLine());
    return start(ctx, args.isEmpty() ? args : args.subList(1, args.size()));
  }

  /** Starts the agent with these arguments (a program of NVIDIA's image gets its own). */
  ContainerProcess start(ContainerContext ctx, List<String> args) {
    ContainerProcess p = new ContainerProcess();
    AgentContext agentCtx = new AgentContext(ctx, args, p);
    String where =
        ctx.pod().getMetadata().getNamespace()
            + "/"
            + ctx.pod().getMetadata().getName()
            + " container "
            + ctx.container().getName()
            + " on node "
            + ctx.nodeName();
    Thread t =
        new Thread(
            () -> {
              try {
                int code = agent.run(agentCtx);
                p.exit(code, code == 0 ? null : name + " exited with " + code);
              } catch (InterruptedException e) {
                p.exit(KubeletConstants.EXIT_KILLED, "killed");
              } catch (Exception | Error e) {
                LOG.warn("agent {} in pod {} failed", name, where, e);
                p.exit(1, e.toString());
              }
            },
            "agent-" + name + "-" + ctx.nodeName() + "-" + ctx.container().getName());
    t.setDaemon(true);
    p.onStop(
        () -> {
          t.interrupt();
          try {
            t.join(5_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    if (readyOnStart) {
      p.markReady();
    }
    LOG.debug("running agent {} in-process for pod {}", name, where);
    t.start();
    return p;
  }
}
