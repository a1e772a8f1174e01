package io.gpuoperator.node.gpu.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.Telemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimulatedBackendTest {

  static SimulatedBackend node(String yaml) {
    return TestNodes.backend(yaml);
  }

  static final String H100_EMPTY_MIG =
      "gpus: [{model: H100-SXM5-80GB, count: 1, mig: {enabled: true}}]\n";

  private static int profileId(SimulatedBackend b, String name) {
    return b.gpuInstanceProfiles(0).stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow()
        .id();
  }

  @Test
  void devicesCarryTheHardwareProfileValues() {
    SimulatedBackend b =
        node(
            """
            machineType: DGX H100
            driverVersion: 550.54.15
            cudaVersion: "12.4"
            numaNodes: 2
            gpus: [{model: H100-SXM5-80GB, count: 8}]
            """);
    List<GpuDevice> devices = b.devices();
    assertThat(devices).hasSize(8);
    GpuDevice d = devices.get(0);
    assertThat(d.name()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(d.uuid()).startsWith("GPU-").hasSize(40);
    assertThat(d.pciBusId()).isEqualTo("00000000:18:00.0");
    assertThat(d.sysfsBusId()).isEqualTo("0000:18:00.0");
    assertThat(d.deviceFilterId()).isEqualTo("0x233010DE");
    assertThat(d.memoryTotalMiB()).isEqualTo(81559);
    assertThat(d.computeMajor()).isEqualTo(9);
    assertThat(d.migCapable()).isTrue();
    assertThat(devices).extracting(GpuDevice::numaNode).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(devices).extracting(GpuDevice::uuid).doesNotHaveDuplicates();
    assertThat(b.cudaDriverVersion()).isEqualTo(12040);
    assertThat(b.link(0, 5).nvLinks()).isEqualTo(18);
    // Another node gets other UUIDs.
    SimulatedBackend other = new SimulatedBackend(b.profile(), "node-b", Clock.systemUTC());
    assertThat(other.devices().get(0).uuid()).isNotEqualTo(d.uuid());
  }

  @Test
  void everyBuiltInProfileLoadsAndNamesItsMigProfilesLikeGoNvlib() {
    for (String model : HardwareProfiles.BUILT_IN) {
      HardwareProfile hw = HardwareProfiles.builtIn(model);
      assertThat(hw.model()).isEqualTo(model);
    }
    assertThat(HardwareProfiles.builtIn("T4").migCapable()).isFalse();
    assertThat(HardwareProfiles.builtIn("A100-SXM4-40GB").mig().gpuInstanceProfiles())
        .extracting(HardwareProfile.GiProfile::name)
        .containsExactly(
            "1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb");
    assertThat(HardwareProfiles.builtIn("H200-SXM-141GB").mig().gpuInstanceProfiles())
        .extracting(HardwareProfile.GiProfile::name)
        .containsExactly(
            "1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb");
  }

  @Test
  void everyBuiltInNodeProfileStarts() {
    for (String name : HardwareProfiles.BUILT_IN_NODES) {
      SimulatedBackend b = new SimulatedBackend(HardwareProfiles.builtInNode(name), "n");
      assertThat(b.devices()).as(name).isNotEmpty();
    }
    SimulatedBackend mixed =
        new SimulatedBackend(HardwareProfiles.builtInNode("dgx-h100-mig-mixed"), "n");
    assertThat(mixed.allMigDevices()).hasSize(32);
    SimulatedBackend single =
        new SimulatedBackend(HardwareProfiles.builtInNode("dgx-h100-mig-single"), "n");
    assertThat(single.allMigDevices()).hasSize(56);
  }

  @Test
  void sevenOneSliceInstancesFitAndTheEighthDoesNot() {
    SimulatedBackend b = node(H100_EMPTY_MIG);
    int id = profileId(b, "1g.10gb");
    assertThat(b.gpuInstanceRemainingCapacity(0, id)).isEqualTo(7);
    for (int i = 0; i < 7; i++) {
      b.createGpuInstance(0, id);
    }
    assertThat(b.gpuInstances(0))
        .extracting(GpuInstance::id)
        .containsExactly(7, 8, 9, 10, 11, 12, 13);
    assertThat(b.gpuInstanceRemainingCapacity(0, id)).isZero();
    assertThatThrownBy(() -> b.createGpuInstance(0, id))
        .isInstanceOf(GpuBackendException.InsufficientResources.class)
        .hasMessageContaining("7 of 7 compute slices used");
  }

  @Test
  void placementsMayNotOverlapAndMustBeValid() {
    SimulatedBackend b = node(H100_EMPTY_MIG);
    int threeG = profileId(b, "3g.40gb");
    int fourG = profileId(b, "4g.40gb");
    assertThat(b.gpuInstancePossiblePlacements(0, threeG))
        .containsExactly(new Placement(0, 4), new Placement(4, 4));
    GpuInstance first = b.createGpuInstance(0, threeG);
    assertThat(first.placement()).isEqualTo(new Placement(4, 4));
    assertThat(first.id()).isEqualTo(2);
    assertThatThrownBy(() -> b.createGpuInstance(0, threeG, new Placement(4, 4)))
        .isInstanceOf(GpuBackendException.InsufficientResources.class);
    assertThatThrownBy(() -> b.createGpuInstance(0, threeG, new Placement(2, 4)))
        .isInstanceOf(GpuBackendException.InvalidArgument.class)
        .hasMessageContaining("not a placement of 3g.40gb");
    assertThat(b.gpuInstanceRemainingCapacity(0, fourG)).isEqualTo(1);
    b.createGpuInstance(0, fourG, new Placement(0, 4));
    // 4 + 3 slices: nothing else fits.
    assertThat(b.gpuInstanceRemainingCapacity(0, profileId(b, "1g.10gb"))).isZero();
    assertThat(b.gpuInstanceRemainingCapacity(0, threeG)).isZero();
  }

  @Test
  void profileCountLimitHoldsEvenWhenSlicesAreFree() {
    SimulatedBackend b = node(H100_EMPTY_MIG);
    int me = profileId(b, "1g.10gb+me");
    b.createGpuInstance(0, me);
    assertThatThrownBy(() -> b.createGpuInstance(0, me))
        .isInstanceOf(GpuBackendException.InsufficientResources.class);
  }

  @Test
  void computeInstancesMakeMigDevicesWithAttributes() {
    SimulatedBackend b = node(H100_EMPTY_MIG);
    GpuInstance gi = b.createGpuInstance(0, profileId(b, "3g.40gb"));
    List<ComputeInstanceProfile> cips = b.computeInstanceProfiles(0, gi.id());
    assertThat(cips).extracting(ComputeInstanceProfile::sliceCount).containsExactly(1, 2, 3);
    b.createComputeInstance(0, gi.id(), cips.get(0).id());
    b.createComputeInstance(0, gi.id(), cips.get(1).id());
    assertThatThrownBy(() -> b.createComputeInstance(0, gi.id(), cips.get(0).id()))
        .isInstanceOf(GpuBackendException.InsufficientResources.class);
    List<MigDevice> devs = b.migDevices(0);
    assertThat(devs)
        .extracting(m -> m.profile().name())
        .containsExactly("1c.3g.40gb", "2c.3g.40gb");
    assertThat(devs.get(0).attributes().memorySizeMb()).isEqualTo(40192);
    assertThat(devs.get(0).attributes().gpuInstanceSliceCount()).isEqualTo(3);
    assertThat(devs.get(1).attributes().computeInstanceSliceCount()).isEqualTo(2);
    assertThat(devs).extracting(MigDevice::uuid).allMatch(u -> u.startsWith("MIG-"));
    assertThatThrownBy(() -> b.destroyGpuInstance(0, gi.id()))
        .isInstanceOf(GpuBackendException.InUse.class);
    b.destroyComputeInstance(0, gi.id(), 0);
    b.destroyComputeInstance(0, gi.id(), 1);
    b.destroyGpuInstance(0, gi.id());
    assertThat(b.gpuInstances(0)).isEmpty();
  }

  @Test
  void initialMixedLayoutAndModeChangeNeedsReset() {
    SimulatedBackend b =
        node(
            """
            gpus:
              - model: H100-SXM5-80GB
                count: 1
                mig: {enabled: true, devices: {1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1}}
              - {model: A100-SXM4-40GB, count: 1}
            """);
    assertThat(b.migDevices(0))
        .extracting(m -> m.profile().name())
        .containsExactlyInAnyOrder("1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb");
    assertThat(b.migMode(1).current()).isFalse();
    assertThat(b.setMigMode(1, true).resetPending()).isTrue();
    assertThatThrownBy(() -> b.gpuInstanceProfiles(1))
        .isInstanceOf(GpuBackendException.NotSupported.class)
        .hasMessageContaining("MIG mode is not enabled");
    b.setInUse(1, true);
    assertThatThrownBy(() -> b.resetGpu(1)).isInstanceOf(GpuBackendException.InUse.class);
    b.setInUse(1, false);
    b.resetGpu(1);
    assertThat(b.migMode(1).current()).isTrue();
    assertThat(b.gpuInstanceProfiles(1)).extracting(GpuInstanceProfile::name).contains("1g.5gb");
    // Disabling while instances exist is refused.
    assertThatThrownBy(() -> b.setMigMode(0, false)).isInstanceOf(GpuBackendException.InUse.class);
  }

  @Test
  void migLayoutThatDoesNotFitIsAProfileError() {
    assertThatThrownBy(
            () ->
                node(
                    """
                    driverVersion: 550.54.15
                    cudaVersion: "12.4"
                    gpus: [{model: A100-SXM4-40GB, count: 1, mig: {enabled: true, devices: {3g.20gb: 3}}}]
                    """))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("does not fit");
  }

  @Test
  void nonMigGpuRefusesMigCalls() {
    SimulatedBackend b =
        node("driverVersion: 535.1.2\ncudaVersion: \"12.2\"\ngpus: [{model: T4, count: 2}]\n");
    assertThatThrownBy(() -> b.migMode(0))
        .isInstanceOf(GpuBackendException.NotSupported.class)
        .hasMessageContaining("Tesla T4");
    assertThat(b.allMigDevices()).isEmpty();
    assertThat(b.link(0, 1).nvLinks()).isZero();
  }

  @Test
  void injectedXidReachesSubscribersAndFailureIsReported() throws Exception {
    SimulatedBackend b = node("gpus: [{model: L4, count: 2}]\n");
    try (GpuEventSubscription s = b.subscribe(EnumSet.of(GpuEventType.XID_CRITICAL_ERROR))) {
      assertThat(s.registeredGpus()).containsExactly(0, 1);
      assertThat(s.poll(Duration.ofMillis(20))).isEmpty();
      b.injectEccError(0, false); // not subscribed
      b.injectXid(1, 79);
      Optional<GpuEvent> e = s.poll(Duration.ofSeconds(1));
      assertThat(e).isPresent();
      assertThat(e.get().data()).isEqualTo(79);
      assertThat(e.get().gpuIndex()).isEqualTo(1);
      assertThat(e.get().wholeGpu()).isTrue();
      b.failEvents(new GpuBackendException.Unknown("driver went away", null));
      assertThatThrownBy(() -> s.poll(Duration.ofSeconds(1)))
          .isInstanceOf(GpuBackendException.Unknown.class)
          .hasMessage("driver went away");
    }
    assertThat(b.telemetry(0).eccCorrectedVolatile()).isEqualTo(1);
  }

  @Test
  void telemetryIsDeterministicPerSeedAndEnergyGrows() {
    NodeProfile p =
        HardwareProfiles.parseNode(
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\nseed: 3\n"
                + "gpus: [{model: H100-SXM5-80GB, count: 2}]\n",
            "t.yaml");
    MutableClock clock = new MutableClock();
    SimulatedBackend a = new SimulatedBackend(p, "n", clock);
    SimulatedBackend b = new SimulatedBackend(p, "n", clock);
    long lastEnergy = -1;
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofSeconds(7));
      Telemetry ta = a.telemetry(0);
      assertThat(ta).isEqualTo(b.telemetry(0));
      assertThat(ta.gpuUtilizationPercent()).isBetween(0L, 100L);
      assertThat(ta.powerMilliwatts()).isBetween(70_000L, 700_000L);
      assertThat(ta.memoryUsedBytes() + ta.memoryFreeBytes() + ta.memoryReservedBytes())
          .isEqualTo(81559L << 20);
      assertThat(ta.energyMillijoules()).isGreaterThan(lastEnergy);
      assertThat(ta.encoderUtilizationPercent()).isEqualTo(Telemetry.UNSUPPORTED);
      lastEnergy = ta.energyMillijoules();
    }
    assertThat(a.telemetry(0)).isNotEqualTo(a.telemetry(1));
  }
}
