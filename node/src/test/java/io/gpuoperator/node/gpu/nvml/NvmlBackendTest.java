package io.gpuoperator.node.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.gpuoperator.node.dra.ComputeDomainDevicesModel;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuError;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NvmlBackend's logic over a stand-in NVML answering from the simulator: everything it reports must
 * equal what the simulator reports directly. Struct offsets are checked separately against nvml.h
 * (NvmlBindingTest) and symbols against the real library (NvmlLibraryTest).
 */
class NvmlBackendTest {
  @TempDir Path sysfs;

  final Clock clock = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
  final SimulatedBackend sim =
      new SimulatedBackend(
          HardwareProfiles.parseNode(
              """
              driverVersion: 550.54.15
              cudaVersion: "12.4"
              numaNodes: 2
              gpus:
                - model: H100-SXM5-80GB
                  count: 1
                  mig: {enabled: true, devices: {1g.10gb+me: 1, 1g.20gb: 1, 3g.40gb: 1}}
                - {model: H100-SXM5-80GB, count: 1}
              """,
              "t"),
          "node-1",
          clock);

  NvmlBackend open() {
    return NvmlBackend.open(new SimulatedNvml(sim), sysfs);
  }

  @Test
  void devicesAndMigDevicesEqualTheSimulatorsAndSysfsIsRead() throws Exception {
    GpuDevice first = sim.devices().get(0);
    Path dev = sysfs.resolve("bus/pci/devices").resolve(first.sysfsBusId());
    Files.createDirectories(dev);
    Files.writeString(dev.resolve("class"), "0x030200\n");
    Files.writeString(dev.resolve("numa_node"), "1\n");
    try (NvmlBackend nvml = open()) {
      assertThat(nvml.driverVersion()).isEqualTo("550.54.15");
      assertThat(nvml.cudaDriverVersion()).isEqualTo(12040);
      GpuDevice d = nvml.devices().get(0);
      assertThat(d)
          .usingRecursiveComparison()
          .ignoringFields("numaNode", "pciClass")
          .isEqualTo(first);
      assertThat(d.numaNode()).isEqualTo(1);
      assertThat(d.pciClass()).isEqualTo(0x030200);
      assertThat(nvml.devices().get(1).numaNode()).isEqualTo(-1); // no sysfs entry
      assertThat(nvml.migDevices(0)).isEqualTo(sim.migDevices(0));
      assertThat(nvml.migDevices(0))
          .extracting(m -> m.profile().name())
          .containsExactlyInAnyOrder("1g.10gb+me", "1g.20gb", "3g.40gb");
      assertThat(nvml.migDevices(1)).isEmpty();
      assertThat(nvml.gpuInstanceProfiles(0)).isEqualTo(sim.gpuInstanceProfiles(0));
      assertThat(nvml.gpuInstances(0)).isEqualTo(sim.gpuInstances(0));
      assertThat(nvml.telemetry(1)).isEqualTo(sim.telemetry(1));
      assertThat(nvml.link(0, 1).nvLinks()).isEqualTo(18);
      assertThat(nvml.link(0, 1).pcie()).isEqualTo(sim.link(0, 1).pcie());
    }
  }

  @Test
  void migOperationsGoThroughAndErrorsAreTyped() {
    try (NvmlBackend nvml = open()) {
      GpuInstanceProfile oneG =
          nvml.gpuInstanceProfiles(0).stream()
              .filter(p -> p.name().equals("1g.10gb"))
              .findFirst()
              .orElseThrow();
      assertThat(nvml.gpuInstanceRemainingCapacity(0, oneG.id())).isEqualTo(1);
      assertThat(nvml.gpuInstancePossiblePlacements(0, oneG.id())).hasSize(7);
      GpuInstance gi = nvml.createGpuInstance(0, oneG.id());
      assertThatThrownBy(() -> nvml.createGpuInstance(0, oneG.id(), new Placement(0, 1)))
          .isInstanceOf(GpuBackendException.InsufficientResources.class)
          .hasMessage("nvmlDeviceCreateGpuInstanceWithPlacement: INSUFFICIENT_RESOURCES");
      var ci = nvml.computeInstanceProfiles(0, gi.id()).get(0);
      var created = nvml.createComputeInstance(0, gi.id(), ci.id());
      assertThat(nvml.computeInstances(0, gi.id())).containsExactly(created);
      assertThat(nvml.migDevices(0)).hasSize(4).isEqualTo(sim.migDevices(0));
      nvml.destroyComputeInstance(0, gi.id(), created.id());
      nvml.destroyGpuInstance(0, gi.id());
      assertThat(sim.gpuInstances(0)).hasSize(3);
      assertThatThrownBy(() -> nvml.destroyGpuInstance(0, 99))
          .isInstanceOf(GpuBackendException.NotFound.class);
      assertThat(nvml.setMigMode(1, true).resetPending()).isTrue();
    }
  }

  @Test
  void eventsArriveWithTheirGpuAndTimeoutsAreEmpty() throws Exception {
    try (NvmlBackend nvml = open();
        GpuEventSubscription s = nvml.subscribe(EnumSet.of(GpuEventType.XID_CRITICAL_ERROR))) {
      assertThat(s.registeredGpus()).containsExactly(0, 1);
      assertThat(s.poll(Duration.ofMillis(10))).isEmpty();
      sim.injectXid(1, 79);
      Optional<GpuEvent> e = s.poll(Duration.ofSeconds(2));
      assertThat(e).isPresent();
      assertThat(e.get().gpuIndex()).isEqualTo(1);
      assertThat(e.get().gpuUuid()).isEqualTo(sim.devices().get(1).uuid());
      assertThat(e.get().data()).isEqualTo(79);
      assertThat(e.get().type()).isEqualTo(GpuEventType.XID_CRITICAL_ERROR);
      assertThat(e.get().wholeGpu()).isTrue();
    }
  }

  /**
   * The fabric by go-nvlib's rules (NVIDIA's DRA driver and GFD): a GB200 in a completed
   * registration reports its cluster UUID (bytes in order, as Go's uuid.FromBytes reads them) and
   * clique, which the DRA plugin turns into the node's clique; an H100 without fabric support, a
   * registration not completed or failed, and a zero UUID report none; another failure is typed.
   */
  @Test
  void theFabricCliqueFollowsNvidiasRules() {
    SimulatedBackend rack =
        new SimulatedBackend(
            HardwareProfiles.parseNode(
                """
                driverVersion: 570.124.06
                cudaVersion: "12.8"
                gpus:
                  - {model: GB200-186GB, count: 2}
                  - {model: H100-SXM5-80GB, count: 1}
                """,
                "t"),
            "node-1",
            clock);
    SimulatedNvml lib = new SimulatedNvml(rack);
    try (NvmlBackend nvml = NvmlBackend.open(lib, sysfs)) {
      GpuFabric expected = new GpuFabric("5c8a1d3e-0000-4000-8000-000000000001", 1);
      assertThat(rack.fabric(0)).contains(expected);
      assertThat(nvml.fabric(0)).contains(expected);
      assertThat(nvml.fabric(1)).contains(expected);
      assertThat(nvml.fabric(2)).isEmpty();
      Memory raw = NvmlStructs.Struct.GPU_FABRIC_INFO.allocate();
      assertThat(lib.nvmlDeviceGetGpuFabricInfo(new Pointer(0x1000), raw)).isZero();
      assertThat(raw.getByte(0)).isEqualTo((byte) 0x5c);
      assertThat(raw.getByte(15)).isEqualTo((byte) 0x01);
      assertThat(
              ComputeDomainDevicesModel.clique(
                  List.of(nvml.fabric(0), nvml.fabric(1), nvml.fabric(2))))
          .contains("5c8a1d3e-0000-4000-8000-000000000001.1");

      for (int state :
          new int[] {
            NvmlStructs.GPU_FABRIC_STATE_NOT_SUPPORTED,
            NvmlStructs.GPU_FABRIC_STATE_NOT_STARTED,
            NvmlStructs.GPU_FABRIC_STATE_IN_PROGRESS
          }) {
        lib.fabricState = state;
        assertThat(nvml.fabric(0)).as("state %d", state).isEmpty();
      }
      lib.fabricState = NvmlStructs.GPU_FABRIC_STATE_COMPLETED;
      lib.fabricStatus = GpuError.UNKNOWN.code();
      assertThat(nvml.fabric(0)).as("completed with an error status").isEmpty();
      lib.fabricStatus = 0;
      lib.fabricZeroUuid = true;
      assertThat(nvml.fabric(0)).as("zero cluster UUID").isEmpty();
      lib.fabricZeroUuid = false;
      assertThat(nvml.fabric(0)).contains(expected);
      lib.fabricReturn = GpuError.UNKNOWN.code();
      assertThatThrownBy(() -> nvml.fabric(0))
          .isInstanceOf(GpuBackendException.Unknown.class)
          .hasMessageStartingWith("nvmlDeviceGetGpuFabricInfo: ");
    }
  }

  @Test
  void callsAfterCloseFailAsUninitialised() {
    NvmlBackend nvml = open();
    nvml.close();
    assertThatThrownBy(() -> nvml.migMode(0)).isInstanceOf(GpuBackendException.Uninitialized.class);
  }

  @Test
  void resetRunsTheDriverRootsNvidiaSmiOnTheGpusBusId() throws Exception {
    Path root = sysfs.resolve("driver");
    Path args = sysfs.resolve("args");
    NvidiaSmiTest.script(root.resolve("usr/bin/nvidia-smi"), "echo \"$@\" > " + args);
    try (NvmlBackend nvml =
        NvmlBackend.open(new SimulatedNvml(sim), sysfs, new NvidiaSmi(List.of(root), null))) {
      nvml.resetGpu(1);
    }
    assertThat(Files.readString(args).trim()).isEqualTo("-r -i " + sim.devices().get(1).pciBusId());
  }

  @Test
  void aResetTheGpuRefusesIsTypedWithNvidiaSmisOutput() throws Exception {
    Path root = sysfs.resolve("driver");
    NvidiaSmiTest.script(
        root.resolve("usr/bin/nvidia-smi"),
        "echo 'GPU 00000000:18:00.0 is currently in use by another process.'; exit 255");
    try (NvmlBackend nvml =
        NvmlBackend.open(new SimulatedNvml(sim), sysfs, new NvidiaSmi(List.of(root), null))) {
      assertThatThrownBy(() -> nvml.resetGpu(0))
          .isInstanceOf(GpuBackendException.InUse.class)
          .hasMessageContaining("nvidia-smi -r -i ")
          .hasMessageContaining("failed with exit code 255: GPU 00000000:18:00.0 is currently");
    }
  }

  @Test
  void aResetWithoutNvidiaSmiSaysWhereItLookedAndWhy() {
    Path root = sysfs.resolve("run/nvidia/driver");
    try (NvmlBackend nvml =
        NvmlBackend.open(
            new SimulatedNvml(sim), sysfs, new NvidiaSmi(List.of(root), "/nonexistent"))) {
      assertThatThrownBy(() -> nvml.resetGpu(0))
          .isInstanceOf(GpuBackendException.NotSupported.class)
          .hasMessageStartingWith("resetting GPU 0 needs nvidia-smi (NVML has no reset call)")
          .hasMessageContaining("driver root(s) " + root)
          .hasMessageContaining("NVIDIA_DRIVER_ROOT");
    }
  }
}
