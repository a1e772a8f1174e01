package io.gpuoperator.node.mig;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigReconfigurerTest {
  /** An in-memory node: labels, the label writes in order, pods deleted, events. */
  static final class FakeNode implements NodeOps {
    final Map<String, String> labels = new HashMap<>();
    final List<Map<String, String>> patches = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final List<String> deleted = new ArrayList<>();
    boolean podsGo = true;

    @Override
    public Map<String, String> labels() {
      return Map.copyOf(labels);
    }

    @Override
    public void patchLabels(Map<String, String> l) {
      patches.add(new HashMap<>(l));
      l.forEach(
          (k, v) -> {
            if (v == null) {
              labels.remove(k);
            } else {
              labels.put(k, v);
            }
          });
    }

    @Override
    public void deletePods(List<String> apps) {
      deleted.addAll(apps);
    }

    @Override
    public boolean awaitPodsGone(List<String> apps, Duration timeout) {
      return podsGo;
    }

    @Override
    public void event(String type, String reason, String message) {
      events.add(type + " " + reason + ": " + message);
    }

    boolean everPaused() {
      return patches.stream().anyMatch(p -> p.containsValue(MigLabels.PAUSED));
    }
  }

  final SimulatedBackend gpus = new SimulatedBackend(HardwareProfiles.builtInNode("dgx-h100"), "n");
  final FakeNode node = new FakeNode();
  final MigConfigFile defaults = MigConfigGenerator.defaults();

  MigReconfigurer reconfigurer() {
    node.labels.put("nvidia.com/gpu.deploy.device-plugin", "true");
    node.labels.put("nvidia.com/gpu.deploy.gpu-feature-discovery", "true");
    node.labels.put("nvidia.com/gpu.deploy.dcgm-exporter", "false"); // a user's choice
    return new MigReconfigurer(gpus, node, MigCatalog.builtIn(), Duration.ofSeconds(5), null);
  }

  @Test
  void aLayoutAlreadyInPlaceIsReportedWithoutAPause() throws Exception {
    var outcome = reconfigurer().reconfigure("all-disabled", defaults);
    assertThat(outcome.state()).isEqualTo(MigLabels.SUCCESS);
    assertThat(outcome.paused()).isFalse();
    assertThat(node.everPaused()).isFalse();
    assertThat(node.patches).containsExactly(Map.of(MigLabels.STATE, MigLabels.SUCCESS));
    // Once more: nothing is written at all.
    reconfigurer().reconfigure("all-disabled", defaults);
    assertThat(node.patches).hasSize(1);
  }

  @Test
  void appliesModeAndGeometryPausingOnlyRunningClients() throws Exception {
    var outcome = reconfigurer().reconfigure("all-1g.10gb", defaults);
    assertThat(outcome.state()).as(outcome.message()).isEqualTo(MigLabels.SUCCESS);
    assertThat(gpus.allMigDevices()).hasSize(56);
    assertThat(gpus.allMigDevices())
        .extracting(MigDevice::profile)
        .allSatisfy(p -> assertThat(p.name()).isEqualTo("1g.10gb"));
    assertThat(node.patches.get(0)).isEqualTo(Map.of(MigLabels.STATE, MigLabels.PENDING));
    assertThat(node.patches.get(1))
        .isEqualTo(
            Map.of(
                "nvidia.com/gpu.deploy.device-plugin", MigLabels.PAUSED,
                "nvidia.com/gpu.deploy.gpu-feature-discovery", MigLabels.PAUSED));
    assertThat(node.labels)
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.gpu-feature-discovery", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "false")
        .containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
    assertThat(node.deleted).contains("nvidia-cuda-validator", MigLabels.OPERATOR_VALIDATOR_APP);
    assertThat(node.events).singleElement().asString().startsWith("Normal MigConfigApplied");

    // A geometry-only change touches only what differs and needs no reset.
    var balanced = reconfigurer().reconfigure("all-balanced", defaults);
    assertThat(balanced.state()).isEqualTo(MigLabels.SUCCESS);
    assertThat(gpus.migDevices(0))
        .extracting(d -> d.profile().name())
        .containsExactlyInAnyOrder("1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb");
    // Back to disabled.
    assertThat(reconfigurer().reconfigure("all-disabled", defaults).state())
        .isEqualTo(MigLabels.SUCCESS);
    assertThat(gpus.migMode(0).current()).isFalse();
  }

  @Test
  void anInvalidOrUnknownConfigFailsBeforeAnythingIsTouched() throws Exception {
    MigConfigFile file =
        MigConfigFile.parse(
            """
            version: v1
            mig-configs:
              too-big:
                - {devices: all, mig-enabled: true, mig-devices: {"3g.40gb": 3}}
              for-a100:
                - {device-filter: "0x20B010DE", devices: all, mig-enabled: true, mig-devices: {"1g.5gb": 7}}
            """,
            "t");
    var outcome = reconfigurer().reconfigure("too-big", file);
    assertThat(outcome.state()).isEqualTo(MigLabels.FAILED);
    assertThat(outcome.message())
        .isEqualTo(
            "MIG config too-big: entry 0 (devices all), GPU 0: 3g.40gb ×3 exceeds its maximum of 2 per GPU on H100-SXM5-80GB");
    assertThat(reconfigurer().reconfigure("for-a100", file).message())
        .contains(
            "selects none of this node's MIG-capable GPUs (NVIDIA H100 80GB HBM3 0x233010DE)");
    assertThat(reconfigurer().reconfigure("nope", file).message())
        .contains("MIG config 'nope' is not in the file");
    assertThat(node.everPaused()).isFalse();
    assertThat(gpus.migMode(0).current()).isFalse();
    assertThat(node.events).hasSize(3).allMatch(e -> e.startsWith("Warning MigConfigFailed"));
  }

  @Test
  void aGpuThatRefusesTheResetFailsTheChangeAndResumesTheClients() throws Exception {
    gpus.setInUse(3, true);
    var outcome = reconfigurer().reconfigure("all-1g.10gb", defaults);
    assertThat(outcome.state()).isEqualTo(MigLabels.FAILED);
    assertThat(outcome.message())
        .contains("GPU 3: the MIG mode change needs a GPU reset, which failed")
        .contains("WITH_REBOOT=true");
    assertThat(node.everPaused()).isTrue();
    assertThat(node.labels)
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "false")
        .containsEntry(MigLabels.STATE, MigLabels.FAILED);
    // Every GPU is back in its old mode: the reset ones were switched back, GPU 3's pending
    // change was withdrawn.
    for (int i = 0; i < 8; i++) {
      assertThat(gpus.migMode(i))
          .as("GPU " + i)
          .isEqualTo(new io.gpuoperator.node.gpu.MigMode(false, false));
    }
    assertThat(node.events).singleElement().asString().startsWith("Warning MigConfigFailed");
  }

  @Test
  void clientsThatDoNotGoFailTheChange() throws Exception {
    node.podsGo = false;
    var outcome = reconfigurer().reconfigure("all-1g.10gb", defaults);
    assertThat(outcome.state()).isEqualTo(MigLabels.FAILED);
    assertThat(outcome.message()).contains("still run on the node after 5 s");
    assertThat(gpus.migMode(0).current()).isFalse();
    assertThat(node.labels).containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
  }

  /**
   * Host services: stopped after the Kubernetes clients are paused, started again (exactly the ones
   * that were active) before they are resumed, after a success and after a failure; an unchanged
   * layout runs no systemctl at all.
   */
  @Test
  void hostGpuClientsStopAroundTheChangeAndStartAgainAfterASuccessOrAFailure() throws Exception {
    List<String> seen = new ArrayList<>();
    java.util.Set<String> active = new java.util.HashSet<>(List.of("dcgm.service"));
    CommandRunner host =
        (argv, t) -> {
          String verb = argv.get(argv.size() - 2);
          String unit = argv.get(argv.size() - 1);
          seen.add(
              verb + " " + unit + " (device-plugin " + node.labels.get(DEVICE_PLUGIN_LABEL) + ")");
          if (verb.equals("stop")) {
            active.remove(unit);
          } else if (verb.equals("start")) {
            active.add(unit);
          }
          return new CommandRunner.Result(
              verb.equals("is-active") && !active.contains(unit) ? 3 : 0, "");
        };
    HostGpuClients clients =
        new HostGpuClients(
            host,
            List.of("chroot", "/host", "systemctl"),
            () -> List.of("nvsm.service", "dcgm.service"));
    reconfigurer();
    MigReconfigurer r =
        new MigReconfigurer(gpus, node, MigCatalog.builtIn(), Duration.ofSeconds(5), null, clients);

    assertThat(r.reconfigure("all-disabled", defaults).state()).isEqualTo(MigLabels.SUCCESS);
    assertThat(seen).isEmpty();

    assertThat(r.reconfigure("all-1g.10gb", defaults).state()).isEqualTo(MigLabels.SUCCESS);
    String paused = "(device-plugin " + MigLabels.PAUSED + ")";
    assertThat(seen)
        .containsExactly(
            "is-active nvsm.service " + paused,
            "is-active dcgm.service " + paused,
            "stop dcgm.service " + paused,
            "start dcgm.service " + paused);
    assertThat(active).containsExactly("dcgm.service");
    assertThat(node.labels).containsEntry(DEVICE_PLUGIN_LABEL, "true");

    // A GPU that refuses the reset: the change fails, and the host service runs again.
    seen.clear();
    gpus.setInUse(3, true);
    var failed = r.reconfigure("all-disabled", defaults);
    assertThat(failed.state()).isEqualTo(MigLabels.FAILED);
    assertThat(seen).endsWith("stop dcgm.service " + paused, "start dcgm.service " + paused);
    assertThat(active).containsExactly("dcgm.service");
    assertThat(node.labels).containsEntry(DEVICE_PLUGIN_LABEL, "true");

    // A service that does not start again fails an otherwise applied change, naming it.
    gpus.setInUse(3, false);
    MigReconfigurer noStart =
        new MigReconfigurer(
            gpus,
            node,
            MigCatalog.builtIn(),
            Duration.ofSeconds(5),
            null,
            new HostGpuClients(
                (argv, t) ->
                    new CommandRunner.Result(
                        argv.contains("start") ? 1 : 0, argv.contains("start") ? "no" : ""),
                List.of("systemctl"),
                () -> List.of("dcgm.service")));
    var notStarted = noStart.reconfigure("all-disabled", defaults);
    assertThat(notStarted.state()).isEqualTo(MigLabels.FAILED);
    assertThat(notStarted.message())
        .startsWith("MIG config all-disabled applied to GPUs")
        .endsWith(
            ", but host GPU client dcgm.service did not start again (systemctl start exited 1:"
                + " no)");
    assertThat(gpus.migMode(0).current()).isFalse();
    assertThat(node.labels).containsEntry(DEVICE_PLUGIN_LABEL, "true");
  }

  static final String DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin";
}
