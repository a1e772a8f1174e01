package io.gpuoperator.node.mig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostGpuClientsTest {
  /** A host whose systemd has these units active; records every command in order. */
  static final class FakeHost implements CommandRunner {
    final Set<String> active;
    final Set<String> refuseStop;
    final Set<String> refuseStart;
    final List<String> commands = new ArrayList<>();

    FakeHost(Set<String> active, Set<String> refuseStop, Set<String> refuseStart) {
      this.active = new java.util.HashSet<>(active);
      this.refuseStop = refuseStop;
      this.refuseStart = refuseStart;
    }

    @Override
    public Result run(List<String> argv, Duration timeout) {
      commands.add(String.join(" ", argv));
      assertThat(argv.subList(0, 3)).containsExactly("chroot", "/host", "systemctl");
      String verb = argv.get(argv.size() - 2);
      String unit = argv.get(argv.size() - 1);
      return switch (verb) {
        case "is-active" -> new Result(active.contains(unit) ? 0 : 3, "");
        case "stop" -> {
          if (refuseStop.contains(unit)) {
            yield new Result(1, "Job for " + unit + " canceled.");
          }
          active.remove(unit);
          yield new Result(0, "");
        }
        case "start" -> {
          if (refuseStart.contains(unit)) {
            yield new Result(1, "Failed to start " + unit + ".");
          }
          active.add(unit);
          yield new Result(0, "");
        }
        default -> throw new AssertionError(argv);
      };
    }
  }

  static final List<String> LISTED = List.of("nvsm.service", "dcgm.service", "nv_peer_mem.service");

  static HostGpuClients clients(FakeHost host) {
    return new HostGpuClients(host, List.of("chroot", "/host", "systemctl"), () -> LISTED);
  }

  @Test
  void stopsOnlyTheActiveServicesAndStartsExactlyThoseInReverseOrder() throws Exception {
    FakeHost host = new FakeHost(Set.of("dcgm.service", "nv_peer_mem.service"), Set.of(), Set.of());
    HostGpuClients c = clients(host);
    List<String> stopped = c.stopActive();
    assertThat(stopped).containsExactly("dcgm.service", "nv_peer_mem.service");
    assertThat(host.active).isEmpty();
    assertThat(c.start(stopped)).isEmpty();
    assertThat(host.commands)
        .containsExactly(
            "chroot /host systemctl -q is-active nvsm.service",
            "chroot /host systemctl -q is-active dcgm.service",
            "chroot /host systemctl stop dcgm.service",
            "chroot /host systemctl -q is-active nv_peer_mem.service",
            "chroot /host systemctl stop nv_peer_mem.service",
            "chroot /host systemctl start nv_peer_mem.service",
            "chroot /host systemctl start dcgm.service");
    assertThat(host.active).containsExactlyInAnyOrder("dcgm.service", "nv_peer_mem.service");
  }

  @Test
  void aServiceThatDoesNotStopRestartsTheOnesStoppedAndNamesTheUnit() throws Exception {
    FakeHost host =
        new FakeHost(Set.copyOf(LISTED), Set.of("nv_peer_mem.service"), Set.of("nvsm.service"));
    assertThatThrownBy(() -> clients(host).stopActive())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "host GPU client nv_peer_mem.service did not stop (systemctl stop exited 1: Job for"
                + " nv_peer_mem.service canceled.); host GPU client nvsm.service did not start"
                + " again (systemctl start exited 1: Failed to start nvsm.service.)");
    assertThat(host.commands)
        .endsWith(
            "chroot /host systemctl stop nv_peer_mem.service",
            "chroot /host systemctl start dcgm.service",
            "chroot /host systemctl start nvsm.service");
    assertThat(host.active).containsExactlyInAnyOrder("dcgm.service", "nv_peer_mem.service");
  }

  @Test
  void theClientsFileIsStrictAndNamesLineAndField() {
    GpuClientsFile ok =
        GpuClientsFile.parse(
            "version: v1\nsystemd-services:\n  - nvsm.service\n  - dcgm.service\n  - nvsm.service\n",
            "clients.yaml");
    assertThat(ok.systemdServices()).containsExactly("nvsm.service", "dcgm.service");
    assertThat(GpuClientsFile.parse("version: v1\n", "c").systemdServices()).isEmpty();
    assertThatThrownBy(
            () ->
                GpuClientsFile.parse(
                    "version: v1\nsystemd-services:\n  - dcgm.service\n  - 'rm -rf /'\n",
                    "clients.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "clients.yaml:2:1 systemd-services: item 1, 'rm -rf /', is not a systemd unit name");
    assertThatThrownBy(
            () ->
                GpuClientsFile.parse(
                    "version: v1\nsystemd-service:\n  - dcgm.service\n", "clients.yaml"))
        .hasMessageStartingWith("clients.yaml:2:1 systemd-service: unknown field");
    assertThatThrownBy(() -> GpuClientsFile.parse("version: v2\n", "clients.yaml"))
        .hasMessageContaining("version: required and must be v1, got v2");
    assertThatThrownBy(
            () -> GpuClientsFile.parse("version: v1\nsystemd-services: dcgm.service\n", "c.yaml"))
        .hasMessageContaining("c.yaml:2:")
        .hasMessageContaining("systemd-services");
  }

  @Test
  void theCommandDecidesAsTheOriginalsEntrypoint(@TempDir Path dir) throws Exception {
    Path ready = dir.resolve("driver-ready");
    Path clients = dir.resolve("clients.yaml");
    Files.writeString(clients, "version: v1\nsystemd-services: [dcgm.service]\n");
    CommandRunner never =
        (argv, t) -> {
          throw new AssertionError("ran " + argv);
        };
    // No driver-ready, not asked: the host is left alone.
    assertThat(hostClients(null, clients, ready, never)).isSameAs(HostGpuClients.NONE);
    // A containerised driver: no host clients.
    Files.writeString(ready, "IS_HOST_DRIVER=false\nNVIDIA_DRIVER_ROOT=/run/nvidia/driver\n");
    assertThat(hostClients(null, clients, ready, never)).isSameAs(HostGpuClients.NONE);
    // A host driver: the file's services, through chroot /host.
    Files.writeString(ready, "IS_HOST_DRIVER=true\nNVIDIA_DRIVER_ROOT=/\n");
    FakeHost host = new FakeHost(Set.of("dcgm.service"), Set.of(), Set.of());
    assertThat(hostClients(null, clients, ready, host).stopActive())
        .containsExactly("dcgm.service");
    // The variable wins over driver-ready.
    assertThat(hostClients(false, clients, ready, never)).isSameAs(HostGpuClients.NONE);
    // Asked for, but the file is missing or bad: a clear error at start.
    assertThatThrownBy(() -> hostClients(true, dir.resolve("nope.yaml"), ready, never))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nope.yaml (GPU_CLIENTS_FILE) does not exist");
    Files.writeString(clients, "version: v1\nsystemd-services: [\"a b\"]\n");
    assertThatThrownBy(() -> hostClients(true, clients, ready, never))
        .hasMessageContaining("clients.yaml:2:")
        .hasMessageContaining("item 0, 'a b', is not a systemd unit name");
  }

  /** The command's decision, with the host's root mounted at {@code /host} as in its pod. */
  private static HostGpuClients hostClients(
      Boolean asked, Path clients, Path driverReady, CommandRunner runner) {
    return MigManagerCommand.hostClients(asked, clients, driverReady, Path.of("/host"), runner);
  }

  /**
   * The real process path: a shell script stands in for the host's systemctl (it keeps the active
   * units in a file and logs its arguments), run through {@link CommandRunner#processes()}.
   */
  @Test
  void aRealExecutableStandsInForSystemctl(@TempDir Path dir) throws Exception {
    Path state = dir.resolve("active");
    Path log = dir.resolve("calls");
    Files.writeString(state, "dcgm.service\nnvsm.service\n");
    Path systemctl = dir.resolve("systemctl");
    Files.writeString(
        systemctl,
        """
        #!/bin/sh
        echo "$*" >> "%2$s"
        [ "$1" = "-q" ] && shift
        verb="$1"; unit="$2"
        case "$verb" in
          is-active) grep -qx "$unit" "%1$s" ;;
          stop)
            if [ "$unit" = "stuck.service" ]; then echo "Job for $unit timed out." >&2; exit 1; fi
            grep -vx "$unit" "%1$s" > "%1$s.new"; mv "%1$s.new" "%1$s" ;;
          start) echo "$unit" >> "%1$s" ;;
          *) echo "unknown verb $verb" >&2; exit 2 ;;
        esac
        """
            .formatted(state, log));
    Files.setPosixFilePermissions(systemctl, PosixFilePermissions.fromString("rwx------"));
    HostGpuClients c =
        new HostGpuClients(
            CommandRunner.processes(),
            List.of(systemctl.toString()),
            () -> List.of("nvsm.service", "nvidia-dcgm.service", "dcgm.service"));
    List<String> stopped = c.stopActive();
    assertThat(stopped).containsExactly("nvsm.service", "dcgm.service");
    assertThat(Files.readString(state)).isEmpty();
    assertThat(c.start(stopped)).isEmpty();
    assertThat(Files.readAllLines(state)).containsExactly("dcgm.service", "nvsm.service");
    assertThat(Files.readAllLines(log))
        .containsExactly(
            "-q is-active nvsm.service",
            "stop nvsm.service",
            "-q is-active nvidia-dcgm.service",
            "-q is-active dcgm.service",
            "stop dcgm.service",
            "start dcgm.service",
            "start nvsm.service");

    // A unit that refuses to stop: its stderr is in the message, the stopped one runs again.
    Files.writeString(state, "nvsm.service\nstuck.service\n");
    HostGpuClients stuck =
        new HostGpuClients(
            CommandRunner.processes(),
            List.of(systemctl.toString()),
            () -> List.of("nvsm.service", "stuck.service"));
    assertThatThrownBy(stuck::stopActive)
        .hasMessage(
            "host GPU client stuck.service did not stop (systemctl stop exited 1: Job for"
                + " stuck.service timed out.)");
    assertThat(Files.readAllLines(state))
        .containsExactlyInAnyOrder("stuck.service", "nvsm.service");

    // A missing executable is a failed command, not a crash.
    CommandRunner.Result missing =
        CommandRunner.processes()
            .run(List.of(dir.resolve("nope").toString()), Duration.ofSeconds(5));
    assertThat(missing.exitCode()).isEqualTo(-1);
    assertThat(missing.output()).startsWith("cannot run ");
  }
}
