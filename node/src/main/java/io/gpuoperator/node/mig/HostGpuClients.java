package io.gpuoperator.node.mig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's GPU clients: systemd services (the GPU clients file) that hold the GPUs outside
 * Kubernetes. Before a MIG change the ones that are active are stopped; afterwards (also after a
 * failure) exactly those are started again, in reverse order. Every command runs in the host's root
 * as the original's does: {@code chroot <HOST_ROOT_MOUNT> systemctl ...}. The list is read again at
 * each change (its ConfigMap may have been edited), before any service is stopped.
 */
public final class HostGpuClients {
  private static final Logger LOG = LoggerFactory.getLogger(HostGpuClients.class);

  /** How long one systemctl call may take (a stop waits for the service to go). */
  static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

  /** No host services are touched (the driver is the operator's, or the file lists none). */
  public static final HostGpuClients NONE =
      new HostGpuClients((argv, t) -> new CommandRunner.Result(0, ""), List.of(), List::of);

  private final CommandRunner runner;
  private final List<String> systemctl;
  private final Supplier<List<String>> services;

  /**
   * @param runner runs the commands
   * @param systemctl the command prefix that reaches the host's systemctl
   * @param services the units to manage, in the file's order (a ConfigException when unreadable)
   */
  public HostGpuClients(
      CommandRunner runner, List<String> systemctl, Supplier<List<String>> services) {
    this.runner = runner;
    this.systemctl = List.copyOf(systemctl);
    this.services = services;
  }

  /** The host's systemctl through {@code chroot hostRoot}, for the services of this file. */
  public static HostGpuClients chroot(CommandRunner runner, Path hostRoot, Path clientsFile) {
    return new HostGpuClients(
        runner,
        List.of("chroot", hostRoot.toString(), "systemctl"),
        () -> GpuClientsFile.load(clientsFile).systemdServices());
  }

  /**
   * Stops the listed services that are active and returns them in the order stopped. When one does
   * not stop, those already stopped are started again and the change fails with the unit and what
   * systemctl said.
   */
  public List<String> stopActive() throws InterruptedException {
    List<String> stopped = new ArrayList<>();
    for (String unit : services.get()) {
      if (!run("-q", "is-active", unit).ok()) {
        continue; // inactive, failed or not installed: nothing to stop, nothing to restart
      }
      LOG.info("stopping host GPU client {}", unit);
      CommandRunner.Result r = run("stop", unit);
      if (!r.ok()) {
        List<String> notRestarted = start(stopped);
        throw new IllegalStateException(
            "host GPU client "
                + unit
                + " did not stop (systemctl stop exited "
                + r.exitCode()
                + (r.output().isEmpty() ? "" : ": " + r.output())
                + ")"
                + (notRestarted.isEmpty() ? "" : "; " + String.join("; ", notRestarted)));
      }
      stopped.add(unit);
    }
    return stopped;
  }

  /**
   * Starts these units again, last stopped first; every one is tried. Returns one message per unit
   * that did not start (empty when all did).
   */
  public List<String> start(List<String> stopped) throws InterruptedException {
    List<String> failures = new ArrayList<>();
    for (int i = stopped.size() - 1; i >= 0; i--) {
      String unit = stopped.get(i);
      LOG.info("starting host GPU client {}", unit);
      CommandRunner.Result r = run("start", unit);
      if (!r.ok()) {
        failures.add(
            "host GPU client "
                + unit
                + " did not start again (systemctl start exited "
                + r.exitCode()
                + (r.output().isEmpty() ? "" : ": " + r.output())
                + ")");
      }
    }
    return failures;
  }

  private CommandRunner.Result run(String... args) throws InterruptedException {
    List<String> argv = new ArrayList<>(systemctl);
    argv.addAll(List.of(args));
    return runner.run(argv, COMMAND_TIMEOUT);
  }
}
