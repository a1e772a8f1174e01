package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.gpuoperator.node.gpu.MigGeometry;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeviceInventoryModelTest {

  /** The test node {@code node-a} of a node profile ({@link TestNodes#backend(String)}). */
  static SimulatedBackend backend(String yaml) {
    return TestNodes.backend(yaml);
  }

  static NodeGpus gpus(SimulatedBackend b) {
    return NodeGpus.read(b, PcieRoots.simulated());
  }

  /** The inventory with MIG placements published as partitionable devices. */
  static DeviceInventory partitionable(SimulatedBackend b) {
    return DeviceInventoryModel.build(
        gpus(b), new DeviceInventoryModel.Options(true, Set.of(), Set.of()));
  }

  /** The first GPU's counters, as numbers: what a scheduler starts from. */
  static Map<String, Long> counters(DeviceInventory inv) {
    Map<String, Long> left = new java.util.HashMap<>();
    inv.counterSets()
        .get(0)
        .getCounters()
        .forEach((k, v) -> left.put(k, Quantity.getAmountInBytes(v.getValue()).longValueExact()));
    return left;
  }

  /**
   * As the scheduler allocates: the first device of the profile whose consumption fits what is
   * left, taken off {@code left}; empty when none fits.
   */
  static java.util.Optional<DraDevice> firstFit(
      DeviceInventory inv, Map<String, Long> left, String profile) {
    java.util.Optional<DraDevice> chosen =
        inv.devices().stream()
            .filter(d -> d.mig().profile().equals(profile))
            .filter(
                d ->
                    d.consumes().entrySet().stream()
                        .allMatch(e -> left.get(e.getKey()) >= e.getValue()))
            .findFirst();
    chosen.ifPresent(d -> d.consumes().forEach((k, v) -> left.merge(k, -v, Long::sum)));
    return chosen;
  }

  @Test
  void wholeGpusCarryNvidiasAttributeNamesAndTypes() {
    try (var b =
        backend(
            "driverVersion: 580.95.05\ncudaVersion: \"13.0\"\nnumaNodes: 2\n"
                + "gpus: [{model: H100-SXM5-80GB, count: 2}]\n")) {
      DeviceInventory inv =
          DeviceInventoryModel.build(gpus(b), DeviceInventoryModel.Options.plain());
      assertThat(inv.devices()).extracting(DraDevice::name).containsExactly("gpu-0", "gpu-1");
      DraDevice d = inv.devices().get(0);
      var a = d.attributes();
      assertThat(a.get("type").getString()).isEqualTo("gpu");
      assertThat(a.get("uuid").getString()).isEqualTo(b.devices().get(0).uuid());
      assertThat(a.get("productName").getString()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(a.get("brand").getString()).isEqualTo("Nvidia");
      assertThat(a.get("architecture").getString()).isEqualTo("Hopper");
      assertThat(a.get("cudaComputeCapability").getVersion()).isEqualTo("9.0.0");
      // Leading zeros would make the API server refuse the version attribute.
      assertThat(a.get("driverVersion").getVersion()).isEqualTo("580.95.5");
      assertThat(a.get("cudaDriverVersion").getVersion()).isEqualTo("13.0.0");
      assertThat(a.get("index").getInt()).isZero();
      assertThat(a.get("minor").getInt()).isZero();
      assertThat(a.get("resource.kubernetes.io/pciBusID").getString()).isEqualTo("0000:18:00.0");
      assertThat(a.get("resource.kubernetes.io/pcieRoot").getString()).isEqualTo("pci0000:00");
      // 81559 MiB as NVML reports it: 79.6 GiB, so a claim for >= 80Gi does not match an H100.
      assertThat(d.capacity().get("memory").getValue()).isEqualTo(new Quantity("81559Mi"));
      assertThat(Quantity.getAmountInBytes(d.capacity().get("memory").getValue()))
          .isLessThan(Quantity.getAmountInBytes(new Quantity("80Gi")))
          .isGreaterThan(Quantity.getAmountInBytes(new Quantity("80G")));
      assertThat(d.kind()).isEqualTo(DraDevice.Kind.GPU);
      assertThat(inv.counterSets()).isEmpty();
    }
  }

  @Test
  void existingMigDevicesArePublishedWithTheirPlacementAndSlices() {
    try (var b =
        backend(
            "gpus: [{model: H100-SXM5-80GB, count: 1,"
                + " mig: {enabled: true, devices: {1g.10gb: 2, 3g.40gb: 1}}}]\n")) {
      DeviceInventory inv =
          DeviceInventoryModel.build(gpus(b), DeviceInventoryModel.Options.plain());
      assertThat(inv.devices())
          .extracting(DraDevice::name)
          // The driver (here the simulator) chose the placements: 3g.40gb at 4, 1g.10gb at 2, 3.
          .containsExactlyInAnyOrder(
              "gpu-0-mig-3g40gb-9-4", "gpu-0-mig-1g10gb-19-2", "gpu-0-mig-1g10gb-19-3");
      DraDevice one = inv.device("gpu-0-mig-1g10gb-19-2").orElseThrow();
      assertThat(one.kind()).isEqualTo(DraDevice.Kind.MIG);
      assertThat(one.attributes().get("type").getString()).isEqualTo("mig");
      assertThat(one.attributes().get("profile").getString()).isEqualTo("1g.10gb");
      assertThat(one.attributes().get("uuid").getString()).startsWith("MIG-");
      assertThat(one.attributes().get("parentUUID").getString())
          .isEqualTo(b.devices().get(0).uuid());
      assertThat(one.attributes().get("productName").getString())
          .isEqualTo("NVIDIA H100 80GB HBM3");
      // memory = profile MB x 1024^2; one memorySlice<i> per slice of the placement.
      assertThat(one.capacity().get("memory").getValue()).isEqualTo(new Quantity("9728Mi"));
      assertThat(one.capacity().get("multiprocessors").getValue()).isEqualTo(new Quantity("16"));
      assertThat(one.capacity()).containsKey("memorySlice2").doesNotContainKey("memorySlice3");
      DraDevice three = inv.device("gpu-0-mig-3g40gb-9-4").orElseThrow();
      assertThat(three.capacity().keySet())
          .contains("memorySlice4", "memorySlice5", "memorySlice6", "memorySlice7")
          .doesNotContain("memorySlice3");
      assertThat(three.attributes().size() + three.capacity().size()).isLessThanOrEqualTo(32);
    }
  }

  @Test
  void aPartitionableGpuOffersEveryPlacementAgainstItsCounters() {
    try (var b = backend("gpus: [{model: H100-SXM5-80GB, count: 1, mig: {enabled: true}}]\n")) {
      DeviceInventory inv = partitionable(b);
      assertThat(inv.counterSets()).hasSize(1);
      CounterSet set = inv.counterSets().get(0);
      assertThat(set.getName()).isEqualTo("gpu-0-counters");
      assertThat(set.getCounters().keySet())
          .contains("memory-slice-0", "memory-slice-7", "multiprocessors", "memory")
          // 1g.10gb+me: 7 placements but one instance at most.
          .contains("1g10gbme-instances");
      // 7 + 7 + 4 + 3 + 2 + 1 + 1 placements of the H100's seven profiles.
      assertThat(inv.devices()).hasSize(25).allMatch(d -> d.kind() == DraDevice.Kind.MIG_PLACEMENT);
      // Large profiles from the top of memory, small ones from the bottom (first fit packs).
      List<String> threeG =
          inv.devices().stream().map(DraDevice::name).filter(n -> n.contains("3g40gb")).toList();
      assertThat(threeG).containsExactly("gpu-0-mig-3g40gb-9-4", "gpu-0-mig-3g40gb-9-0");
      List<String> twoG =
          inv.devices().stream().map(DraDevice::name).filter(n -> n.contains("2g20gb")).toList();
      assertThat(twoG)
          .containsExactly(
              "gpu-0-mig-2g20gb-14-0", "gpu-0-mig-2g20gb-14-2", "gpu-0-mig-2g20gb-14-4");
      DraDevice p = inv.device("gpu-0-mig-3g40gb-9-4").orElseThrow();
      assertThat(p.counterSet()).isEqualTo("gpu-0-counters");
      assertThat(p.consumes())
          .containsEntry("memory-slice-4", 1L)
          .containsEntry("memory-slice-7", 1L)
          .doesNotContainKey("memory-slice-3")
          .containsEntry("multiprocessors", 60L)
          .containsEntry("memory", 40192L << 20);
      assertThat(p.attributes()).doesNotContainKey("uuid");
      assertThat(p.attributes().get("profile").getString()).isEqualTo("3g.40gb");
    }
  }

  @Test
  void foreignMigDevicesKeepAGpuStaticAndUnhealthyDevicesAreWithdrawn() {
    try (var b =
        backend(
            "gpus: [{model: H100-SXM5-80GB, count: 1,"
                + " mig: {enabled: true, devices: {2g.20gb: 1}}}, {model: H100-SXM5-80GB, count: 1}]\n")) {
      String gpu1 = b.devices().get(1).uuid();
      DeviceInventory inv =
          DeviceInventoryModel.build(
              gpus(b), new DeviceInventoryModel.Options(true, Set.of(), Set.of(gpu1)));
      assertThat(inv.counterSets()).isEmpty();
      assertThat(inv.devices())
          .extracting(DraDevice::name)
          .containsExactly("gpu-0-mig-2g20gb-14-4");
      assertThat(inv.notes())
          .anyMatch(n -> n.contains("did not create"))
          .anyMatch(n -> n.contains("unhealthy") && n.contains(gpu1));
      // The plugin's own MIG device does not stop the GPU from being partitionable.
      int gi = b.migDevices(0).get(0).gpuInstanceId();
      DeviceInventory managed =
          DeviceInventoryModel.build(
              gpus(b),
              new DeviceInventoryModel.Options(
                  true, Set.of(new DeviceInventoryModel.MigKey(0, gi)), Set.of()));
      assertThat(managed.counterSets()).hasSize(1);
      assertThat(managed.device("gpu-0-mig-2g20gb-14-4").orElseThrow().kind())
          .isEqualTo(DraDevice.Kind.MIG_PLACEMENT);
      assertThat(managed.device("gpu-1")).isPresent();
    }
  }

  /**
   * The scheduler's first fit over the published placements and counters, for random sequences of
   * MIG requests on every MIG-capable model: whatever the counters admit, the GPU (the simulator,
   * enforcing the model's placements and per-profile maximum) creates at exactly those placements,
   * and MIG validation ({@link MigGeometry#check}) accepts as a set. The counters are never looser
   * than the MIG tables.
   */
  @Test
  void countersNeverAdmitALayoutTheGpuRefuses() {
    java.util.Random random = new java.util.Random(17);
    for (var hw : io.gpuoperator.node.mig.MigCatalog.builtIn().models()) {
      for (int round = 0; round < 20; round++) {
        try (var b =
            backend("gpus: [{model: " + hw.model() + ", count: 1, mig: {enabled: true}}]\n")) {
          DeviceInventory inv = partitionable(b);
          Map<String, Long> left = counters(inv);
          List<String> profiles =
              inv.devices().stream().map(d -> d.mig().profile()).distinct().toList();
          Map<String, Integer> counts = new java.util.TreeMap<>();
          for (int step = 0; step < 12; step++) {
            String want = profiles.get(random.nextInt(profiles.size()));
            DraDevice chosen = firstFit(inv, left, want).orElse(null);
            if (chosen == null) {
              continue; // the scheduler would refuse this claim
            }
            counts.merge(want, 1, Integer::sum);
            var slot = chosen.mig();
            var gi = b.createGpuInstance(0, slot.gpuInstanceProfileId(), slot.placement());
            assertThat(gi.placement()).isEqualTo(slot.placement());
            assertThat(io.gpuoperator.node.gpu.MigGeometry.of(b, 0).check(counts).fits())
                .as("%s on %s", counts, hw.model())
                .isTrue();
          }
        }
      }
    }
  }

  @Test
  void firstFitPlacesA3gAndTwo2gOnOneH100() {
    try (var b = backend("gpus: [{model: H100-SXM5-80GB, count: 1, mig: {enabled: true}}]\n")) {
      DeviceInventory inv = partitionable(b);
      Map<String, Long> left = counters(inv);
      List<String> placed = new java.util.ArrayList<>();
      for (String want : List.of("3g.40gb", "2g.20gb", "2g.20gb", "1g.10gb")) {
        firstFit(inv, left, want).ifPresent(d -> placed.add(d.name()));
      }
      // The fourth (1g.10gb) does not fit: all 8 memory slices and 7 compute slices are used.
      assertThat(placed)
          .containsExactly(
              "gpu-0-mig-3g40gb-9-4", "gpu-0-mig-2g20gb-14-0", "gpu-0-mig-2g20gb-14-2");
    }
  }

  @Test
  void attributeHelpers() {
    assertThat(GpuFacts.architecture(8, 9)).isEqualTo("Ada Lovelace");
    assertThat(GpuFacts.architecture(8, 0)).isEqualTo("Ampere");
    assertThat(GpuFacts.semver("550.54.15")).isEqualTo("550.54.15");
    assertThat(GpuFacts.semver("535.104.05")).isEqualTo("535.104.5");
    assertThat(GpuFacts.cudaVersion(12040)).isEqualTo("12.4.0");
    assertThat(GpuFacts.brand("NVIDIA GeForce RTX 4090")).isEqualTo("GeForce");
    assertThat(GpuFacts.profileLabel("1g.10gb+me")).isEqualTo("1g10gbme");
    assertThat(DeviceInventoryModel.bytes(81559L << 20)).isEqualTo("81559Mi");
    assertThat(Map.of()).isEmpty();
  }
}
