package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceStateTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final SimulatedBackend backend =
      DeviceInventoryModelTest.backend(
          "gpus: [{model: H100-SXM5-80GB, count: 1},"
              + " {model: H100-SXM5-80GB, count: 1, mig: {enabled: true}}]\n");
  private final TimeSlicing.Recording slices = TimeSlicing.recording();

  @AfterEach
  void close() {
    backend.close();
  }

  private DeviceState state() throws Exception {
    return new DeviceState(
        backend,
        "node-a",
        PcieRoots.simulated(),
        true,
        new CheckpointStore(dir.resolve("plugin/checkpoint.json")),
        dir.resolve("cdi"),
        Path.of("/"),
        dir.resolve("mps"),
        () -> Map.of("gpu1/gi1/access", 11, "gpu1/gi1/ci0/access", 12),
        slices);
  }

  private JsonNode spec(String uid) throws Exception {
    return JSON.readTree(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json").toFile());
  }

  @Test
  void aGpuClaimGetsACdiSpecAndIsPreparedOnce() throws Exception {
    DeviceState state = state();
    String ts = Claims.gpuConfig("{strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}");
    var devices = state.prepare(Claims.allocation("uid-1", ts, "gpu:gpu-0"));
    assertThat(devices).hasSize(1);
    assertThat(devices.get(0).cdiDeviceIds())
        .containsExactly("k8s.gpu.nvidia.com/claim=uid-1-gpu-0");
    JsonNode spec = spec("uid-1");
    assertThat(spec.path("kind").asText()).isEqualTo("k8s.gpu.nvidia.com/claim");
    assertThat(spec.path("devices").get(0).path("name").asText()).isEqualTo("uid-1-gpu-0");
    assertThat(
            spec.path("devices")
                .get(0)
                .path("containerEdits")
                .path("deviceNodes")
                .get(0)
                .path("path")
                .asText())
        .isEqualTo("/dev/nvidia0");
    assertThat(slices.intervals())
        .containsEntry(backend.devices().get(0).uuid(), Sharing.Interval.LONG);

    // A second prepare (the kubelet retries, or a second pod shares the claim) changes nothing.
    long written = Files.getLastModifiedTime(dir.resolve("plugin/checkpoint.json")).toMillis();
    assertThat(state.prepare(Claims.allocation("uid-1", ts, "gpu:gpu-0"))).isEqualTo(devices);
    assertThat(Files.getLastModifiedTime(dir.resolve("plugin/checkpoint.json")).toMillis())
        .isEqualTo(written);

    state.unprepare("uid-1");
    assertThat(dir.resolve("cdi/k8s.gpu.nvidia.com-claim_uid-1.json")).doesNotExist();
    assertThat(state.checkpoint().claims()).isEmpty();
    assertThat(slices.intervals())
        .containsEntry(backend.devices().get(0).uuid(), Sharing.Interval.DEFAULT);
    state.unprepare("uid-1"); // idempotent
  }

  @Test
  void aPartitionablePlacementIsCreatedAtPrepareAndDestroyedAtUnprepare() throws Exception {
    DeviceState state = state();
    String device = "gpu-1-mig-3g40gb-9-4";
    assertThat(state.inventory(java.util.Set.of()).device(device)).isPresent();
    var devices = state.prepare(Claims.allocation("uid-2", "", "mig:" + device));
    assertThat(backend.migDevices(1)).hasSize(1);
    var mig = backend.migDevices(1).get(0);
    assertThat(mig.profile().name()).isEqualTo("3g.40gb");
    assertThat(mig.placement().start()).isEqualTo(4);
    assertThat(devices.get(0).uuid()).isEqualTo(mig.uuid());
    // Still a partitionable GPU (its only MIG device is the plugin's own), same device names.
    var after = state.inventory(java.util.Set.of());
    assertThat(after.counterSets()).hasSize(1);
    assertThat(after.device(device).orElseThrow().kind()).isEqualTo(DraDevice.Kind.MIG_PLACEMENT);
    // A MIG device's nodes: its parent's and its access capabilities.
    JsonNode nodes =
        spec("uid-2").path("devices").get(0).path("containerEdits").path("deviceNodes");
    assertThat(nodes.findValuesAsText("path")).contains("/dev/nvidia1");

    state.unprepare("uid-2");
    assertThat(backend.migDevices(1)).isEmpty();
    assertThat(backend.gpuInstances(1)).isEmpty();
  }

  @Test
  void aRestartedPluginKeepsItsClaimsAndAdoptsAMigDeviceCreatedJustBeforeItDied() throws Exception {
    DeviceState first = state();
    first.prepare(Claims.allocation("uid-3", "", "gpu:gpu-0"));
    // Simulate a crash after the MIG device of uid-4 was created but before it was recorded:
    // a started record without createdMig, and the GPU instance on the hardware.
    var started =
        new Checkpoint.PreparedClaim(
            "ns",
            "claim-uid-4",
            Checkpoint.State.PREPARE_STARTED,
            List.of(
                new Checkpoint.PreparedDevice(
                    List.of("mig"),
                    "gpu-1-mig-2g20gb-14-0",
                    1,
                    null,
                    new DraDevice.MigSlot(
                        14, "2g.20gb", new io.gpuoperator.node.gpu.Placement(0, 2)),
                    null,
                    Sharing.DEFAULT,
                    List.of())));
    new CheckpointStore(dir.resolve("plugin/checkpoint.json"))
        .save(first.checkpoint().with("uid-4", started));
    var gi = backend.createGpuInstance(1, 14, new io.gpuoperator.node.gpu.Placement(0, 2));
    backend.createComputeInstance(
        1, gi.id(), backend.computeInstanceProfiles(1, gi.id()).get(0).id());

    DeviceState second = state();
    assertThat(second.prepared("uid-3")).isNotNull();
    assertThat(second.checkpoint().claims().get("uid-4").devices().get(0).createdMig()).isNotNull();
    // The adopted MIG device is the plugin's: the GPU stays partitionable.
    assertThat(second.inventory(java.util.Set.of()).counterSets()).hasSize(1);
    // Preparing uid-4 again finishes it without creating a second MIG device.
    second.prepare(Claims.allocation("uid-4", "", "mig:gpu-1-mig-2g20gb-14-0"));
    assertThat(backend.migDevices(1)).hasSize(1);
    second.unprepare("uid-4");
    assertThat(backend.migDevices(1)).isEmpty();
  }

  @Test
  void mpsLimitsReachTheWorkloadAsCudaVariables() throws Exception {
    DeviceState state = state();
    String mps =
        Claims.gpuConfig(
            "{strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 25,"
                + " defaultPinnedDeviceMemoryLimit: 10Gi}}");
    state.prepare(Claims.allocation("uid-5", mps, "gpu:gpu-0"));
    JsonNode edits = spec("uid-5").path("containerEdits");
    List<String> env = JSON.convertValue(edits.path("env"), List.class);
    assertThat(env)
        .contains(
            "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps",
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=10240M");
    assertThat(edits.path("mounts").get(0).path("hostPath").asText())
        .isEqualTo(dir.resolve("mps/uid-5").toString());
    assertThat(dir.resolve("mps/uid-5")).isDirectory();
    state.unprepare("uid-5");
    assertThat(dir.resolve("mps/uid-5")).doesNotExist();
  }

  @Test
  void aBadClaimChangesNothingAndAnUnknownDeviceIsNamed() throws Exception {
    DeviceState state = state();
    assertThatThrownBy(() -> state.prepare(Claims.allocation("uid-6", "", "gpu:gpu-9")))
        .hasMessageContaining("device gpu-9 (request gpu) is not a device of node node-a");
    assertThatThrownBy(
            () ->
                state.prepare(
                    Claims.allocation(
                        "uid-7", Claims.gpuConfig("{strategy: Sometimes}"), "gpu:gpu-0")))
        .hasMessageContaining("sharing.strategy");
    assertThat(state.checkpoint().claims()).isEmpty();
    assertThat(dir.resolve("cdi")).doesNotExist();
  }

  @Test
  void anUnreadableCheckpointStopsThePluginInsteadOfLosingClaims() throws Exception {
    Files.createDirectories(dir.resolve("plugin"));
    Files.writeString(dir.resolve("plugin/checkpoint.json"), "{\"version\": 1, \"claims\": {");
    assertThatThrownBy(this::state)
        .hasMessageContaining("checkpoint " + dir.resolve("plugin/checkpoint.json"))
        .hasMessageContaining("move it away to start with none");
  }
}
