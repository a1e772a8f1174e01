package io.gpuoperator.cli.simulate;

import ch.qos.logback.classic.Level;
import io.gpuoperator.sim.kubelet.ClusterFile;
import io.gpuoperator.sim.kubelet.DeclaredBehaviour;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator simulate}: a whole GPU cluster on this machine, without GPUs. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a whole GPU cluster on this machine, without GPUs: a real control plane (etcd,",
      "kube-apiserver, kube-controller-manager, kube-scheduler), simulated nodes whose kubelets run",
      "this project's agents in-process against simulated GPUs, and the operator with a",
      "ClusterPolicy. Shows progress until the policy is ready, then a table; Ctrl-C stops it.",
      "Exit codes: 0 ready (--until-ready) or stopped, 1 not ready within --timeout, 2 bad input."
    })
public class SimulateCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--cluster-file",
      description = "The nodes, as YAML (see README); default: 2x 8xH100, 4xA100, a CPU node, 2xL4")
  Path clusterFile;

  @Option(
      names = {"-f", "--filename"},
      description = "ClusterPolicy YAML; default: the project's images, --mig-strategy")
  Path policyFile;

  @Option(
      names = "--mig-strategy",
      defaultValue = "single",
      description = "MIG strategy of the default policy: none, single or mixed (default single)")
  String migStrategy;

  @Option(
      names = "--kubeconfig-out",
      defaultValue = "simulate.kubeconfig",
      description =
          "Where to write the cluster's kubeconfig while it runs (default ./simulate.kubeconfig)")
  Path kubeconfigOut;

  @Option(
      names = "--until-ready",
      description = "Exit 0 once ready; non-zero with the reason after --timeout")
  boolean untilReady;

  @Option(
      names = "--timeout",
      defaultValue = "5m",
      description = "How long to wait for readiness: 300s, 5m ... (default 5m)")
  String timeout;

  @Option(
      names = "--node-monitor-grace-period",
      defaultValue = "40s",
      description = "The controller-manager's grace before a silent node is NotReady (default 40s)")
  String nodeMonitorGracePeriod;

  @Option(
      names = {"-v", "--verbose"},
      description = "Log every component at INFO to stderr (default: warnings only)")
  boolean verbose;

  /** Counted down when the simulation should stop (tests; SIGINT goes through the JVM hook). */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!verbose) {
      ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
          .setLevel(Level.WARN);
      // logback.xml raises the operator SDK to INFO for the operator command; not here.
      ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.javaoperatorsdk"))
          .setLevel(Level.WARN);
      // Netty warns about a socket option Unix sockets lack on every connection.
      ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.grpc.netty.shaded"))
          .setLevel(Level.ERROR);
    }
    Duration wait;
    List<NodeDescription> nodes;
    String policy;
    String policySource;
    try {
      wait = DeclaredBehaviour.parseDuration(timeout);
      if (!List.of("none", "single", "mixed").contains(migStrategy)) {
        throw new IllegalArgumentException(
            "--mig-strategy: expected none, single or mixed, got '" + migStrategy + "'");
      }
      nodes = clusterFile == null ? Simulation.defaultCluster() : ClusterFile.read(clusterFile);
      if (policyFile == null) {
        policy = Simulation.defaultPolicy(migStrategy);
        policySource = "the default policy (mig strategy " + migStrategy + ")";
      } else {
        policy = Files.readString(policyFile);
        policySource = policyFile.toString();
      }
    } catch (NoSuchFileException e) {
      err.println("simulate: " + e.getFile() + ": no such file");
      return 2;
    } catch (IllegalArgumentException | IOException e) {
      err.println("simulate: " + e.getMessage());
      return 2;
    }
    ProgressPrinter progress = new ProgressPrinter(out);
    Simulation sim;
    try {
      sim =
          Simulation.builder()
              .nodes(nodes)
              .policy(policy, policySource)
              .nodeMonitorGracePeriod(nodeMonitorGracePeriod)
              .kubeconfigOut(kubeconfigOut.toAbsolutePath())
              .progress(progress::step)
              .start();
    } catch (IllegalArgumentException e) {
      err.println("simulate: " + e.getMessage());
      return 2;
    } catch (IOException | RuntimeException e) {
      // e.g. missing control-plane binaries: everything started so far is stopped already
      err.println("simulate: cannot start the simulated cluster: " + e.getMessage());
      return 1;
    }
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              sim.close();
            },
            "simulate-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      out.println("The cluster is up; inspect it while it runs:");
      // The kubectl built with the control plane (same version), not whatever is on PATH.
      out.println(
          "  "
              + sim.controlPlane().kubectl()
              + " --kubeconfig "
              + sim.kubeconfigOut()
              + " get nodes -L "
              + SimulationStatus.PRODUCT_LABEL);
      out.flush();
      SimulationStatus last = sim.awaitReady(wait, progress::update);
      out.println();
      progress.table(last);
      if (last.ready()) {
        out.printf(
            "Ready in %d s: ClusterPolicy %s ready, every GPU node labelled and advertising its GPUs.%n",
            progress.elapsed().toSeconds(), sim.policyName());
      } else {
        err.println("simulate: not ready after " + timeout + ":");
        last.reasons().forEach(r -> err.println("  " + r));
      }
      out.flush();
      if (untilReady) {
        return last.ready() ? 0 : 1;
      }
      out.println("Running until Ctrl-C.");
      out.flush();
      stop.await();
      return 0;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: the hook stops the simulation
      }
      sim.close();
    }
  }
}
