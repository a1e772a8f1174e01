package io.gpuoperator.sim.kubelet;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this project's real agent code as a simulated container: an {@link InProcessAgent} in a
 * thread of its own, an {@link InProcessService} started on the kubelets' shared pool and holding
 * no thread afterwards, an {@link InProcessTask} begun on another small one and holding none while
 * it waits. The container is ready once the agent says so (or at once when {@code readyOnStart});
 * it exits with the agent's return value (a task's future's), 1 on an exception, 137 when killed.
 */
public record InProcessContainerRunner(String name, InProcessAgent agent, boolean readyOnStart)
    implements ContainerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessContainerRunner.class);

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
    String threadName = "agent-" + name + "-" + ctx.nodeName() + "-" + ctx.container().getName();
    if (readyOnStart) {
      p.markReady();
    }
    LOG.debug("running agent {} in-process for pod {}", name, where);
    if (agent instanceof InProcessService) {
      new ServiceStart((InProcessService) agent, agentCtx, p, where, threadName)
          .begin(KubeletThreads.agents());
      return p;
    }
    if (agent instanceof InProcessTask task) {
      new ServiceStart(untilExit(task, p, where), agentCtx, p, where, threadName)
          .begin(KubeletThreads.checks());
      return p;
    }
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
            threadName);
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
    t.start();
    return p;
  }

  /**
   * A task as a service whose start begins it: the container exits when the task's future
   * completes, and stopping the service (the kill) cancels the future. So a task gets the service's
   * start (its thread name while beginning, its handling of a kill during the start), on the
   * bounded {@link KubeletThreads#checks()} pool: a begin does not wait, and a rollout begins a
   * validator on every GPU node at once, for which the growing start pool grew a thread each.
   */
  private InProcessService untilExit(InProcessTask task, ContainerProcess p, String where) {
    return ctx -> {
      CompletableFuture<Integer> code = task.begin(ctx);
      code.whenComplete(
          (c, e) -> {
            if (e == null) {
              p.exit(c, c == 0 ? null : name + " exited with " + c);
            } else if (code.isCancelled()) {
              p.exit(KubeletConstants.EXIT_KILLED, "killed");
            } else {
              Throwable cause =
                  e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
              LOG.warn("agent {} in pod {} failed", name, where, cause);
              p.exit(1, cause.toString());
            }
          });
      return () -> code.cancel(true);
    };
  }

  /**
   * One start of a service: {@code start} runs on the kubelets' shared pool (it may block: a
   * registration over gRPC, a first collection, an API call), then the container holds only what it
   * returned. A kill interrupts a start still running, waits up to 5 s for it, and closes the
   * service; a start that ends after the kill closes its own result.
   */
  private final class ServiceStart {
    private final InProcessService service;
    private final AgentContext ctx;
    private final ContainerProcess process;
    private final String where;
    private final String threadName;
    private final java.util.concurrent.CountDownLatch done =
        new java.util.concurrent.CountDownLatch(1);
    // Guarded by this: the thread running start (interrupted on a kill), its result, the kill.
    private Thread starting;
    private AutoCloseable running;
    private boolean stopped;

    ServiceStart(
        InProcessService service,
        AgentContext ctx,
        ContainerProcess process,
        String where,
        String threadName) {
      this.service = service;
      this.ctx = ctx;
      this.process = process;
      this.where = where;
      this.threadName = threadName;
    }

    void begin(java.util.concurrent.Executor pool) {
      process.onStop(this::stop);
      pool.execute(this::start);
    }

    private void start() {
      Thread thread = Thread.currentThread();
      String poolName = thread.getName();
      thread.setName(threadName);
      AutoCloseable result = null;
      try {
        synchronized (this) {
          if (stopped) {
            return;
          }
          starting = thread;
        }
        result = service.start(ctx);
      } catch (InterruptedException e) {
        process.exit(KubeletConstants.EXIT_KILLED, "killed");
      } catch (Exception | Error e) {
        LOG.warn("agent {} in pod {} failed", name, where, e);
        process.exit(1, e.toString());
      } finally {
        boolean closeNow;
        synchronized (this) {
          starting = null;
          Thread.interrupted(); // a kill's interrupt must not reach the pool's next task
          closeNow = stopped;
          if (!stopped) {
            running = result;
          }
        }
        thread.setName(poolName);
        done.countDown();
        if (closeNow) {
          close(result);
        } else if (result == null && !process.hasExited()) {
          process.exit(0, null); // a one-shot run that has finished
        }
      }
    }

    private void stop() {
      synchronized (this) {
        stopped = true;
        if (starting != null) {
          starting.interrupt();
        }
      }
      try {
        done.await(5, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      AutoCloseable r;
      synchronized (this) {
        r = running;
        running = null;
      }
      close(r);
    }

    private void close(AutoCloseable r) {
      if (r == null) {
        return;
      }
      try {
        r.close();
      } catch (Exception e) {
        LOG.warn("agent {} in pod {}: stopping it failed: {}", name, where, e.toString());
      }
    }
  }
}
