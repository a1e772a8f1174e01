package io.gpuoperator.cli.simulate;

import static io.gpuoperator.node.validator.ValidatorEnv.*;

import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.node.validator.GpuBackendOpener;
import io.gpuoperator.node.validator.ValidatorCommand;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessTask;
import io.gpuoperator.sim.kubelet.KubeletThreads;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs {@code gpu-operator validator ...} in-process for a simulated node's pod: the container's
 * environment with the node's own directories in place of the host paths, the node's simulated GPU
 * backend, and the simulation's client. It holds no thread while it waits (a task, not an agent
 * with a thread of its own): the validation runs on the kubelets' shared {@link
 * KubeletThreads#checks()} scheduler.
 */
public final class ValidatorAgent implements InProcessTask {
  private static final Logger LOG = LoggerFactory.getLogger(ValidatorAgent.class);
  private final Function<String, GpuBackendOpener> backends;

  /** {@code backends} gives the GPU backend opener of a node, by node name. */
  public ValidatorAgent(Function<String, GpuBackendOpener> backends) {
    this.backends = backends;
  }

  @Override
  public CompletableFuture<Integer> begin(AgentContext ctx) {
    Map<String, String> env = InProcessEnv.of(ctx);
    for (var path :
        List.of(
            Map.entry(VALIDATIONS_DIR, DEFAULT_VALIDATIONS_DIR),
            Map.entry(NVIDIA_DRIVER_ROOT, DEFAULT_DRIVER_ROOT),
            Map.entry(RUNTIME_CONFIG, DEFAULT_RUNTIME_CONFIG),
            Map.entry(RUNTIME_DROP_IN_CONFIG, DEFAULT_RUNTIME_DROP_IN_CONFIG),
            Map.entry(CDI_SPEC_DIR, DEFAULT_CDI_DIR))) {
      String value = env.getOrDefault(path.getKey(), path.getValue());
      // Through the container's mounts, as a real container sees it (the toolkit step reads the
      // runtime's files at /runtime/...).
      try {
        env.put(path.getKey(), ContainerPaths.resolve(ctx, value).toString());
      } catch (java.io.IOException e) {
        LOG.warn("validator on node {}: {}: {}", ctx.nodeName(), value, e.toString());
        return CompletableFuture.completedFuture(1);
      }
    }
    // The node's /proc and /sys are its directory's (the simulated driver writes proc/modules).
    env.putIfAbsent(SYSTEM_ROOT, ctx.dirs().host().toString());
    // Simulated layers come up in seconds; poll markers every second, not every five.
    env.putIfAbsent(SLEEP_INTERVAL, "1");
    GpuBackendOpener opener = backends.apply(ctx.nodeName());
    ValidatorCommand command =
        new ValidatorCommand(
            env, ctx::client, config -> opener, KubeletThreads.checks(), ctx.nodeWatch());
    CommandLine cl = CommandLines.configure(new CommandLine(command));
    // What the validator prints is the container's log, not the simulator's output.
    java.io.StringWriter log = new java.io.StringWriter();
    cl.setOut(new java.io.PrintWriter(log, true));
    cl.setErr(new java.io.PrintWriter(log, true));
    // The same parsing and exit codes as the real command; call() only starts the validation.
    int parsed = cl.execute(ctx.args().toArray(String[]::new));
    CompletableFuture<Integer> code =
        command.begun() != null ? command.begun() : CompletableFuture.completedFuture(parsed);
    code.whenComplete(
        (c, e) ->
            LOG.debug(
                "validator {} on node {}: exit {}: {}",
                ctx.args(),
                ctx.nodeName(),
                e == null ? c : e.toString(),
                log));
    return code;
  }
}
