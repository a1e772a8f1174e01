package io.gpuoperator.node.deviceplugin;

import static io.gpuoperator.node.deviceplugin.PluginHarness.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuError;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.sim.kubelet.deviceplugin.Admission;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device plugin against the kubelet side of the device-plugin API (module sim) over real Unix
 * sockets: registration, ListAndWatch content, Allocate per strategy, refusals, health and
 * re-registration.
 */
class DevicePluginComponentTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String GPU = PluginNames.GPU_RESOURCE;

  @TempDir Path dir;
  private PluginHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  /** The plugin with the original's defaults on a node of this profile; its kubelet side. */
  private KubeletDeviceManager start(String profile) throws Exception {
    h = new PluginHarness(dir, profile, DevicePluginSettings.defaults());
    return h.kubelet;
  }

  /** The plugin with the mixed strategy on two H100s in MIG mode; its kubelet side. */
  private KubeletDeviceManager startMixed() throws Exception {
    h =
        new PluginHarness(
            dir,
            PluginHarness.H100X2_MIXED,
            DevicePluginSettings.defaults().withMigStrategy(MigStrategy.MIXED));
    return h.kubelet;
  }

  @Test
  void wholeGpusRegisterAndStreamEightHealthyUuidsWithTheirNumaNode() throws Exception {
    KubeletDeviceManager k = start(PluginHarness.H100X8);
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 8);
    assertThat(k.registrations(GPU)).isEqualTo(1);
    assertThat(Files.exists(k.pluginDir().resolve("nvidia-gpu.sock"))).isTrue();
    List<GpuDevice> gpus = h.backend.devices();
    assertThat(k.devices(GPU).keySet())
        .containsExactlyElementsOf(gpus.stream().map(GpuDevice::uuid).toList());
    for (GpuDevice g : gpus) {
      Device d = k.devices(GPU).get(g.uuid());
      assertThat(d.getID()).startsWith("GPU-");
      assertThat(d.getHealth()).isEqualTo(DevicePluginConstants.HEALTHY);
      assertThat(d.getTopology().getNodes(0).getID()).isEqualTo(g.numaNode());
    }
    assertThat(gpus.stream().map(GpuDevice::numaNode).distinct()).containsExactly(0, 1);
  }

  @Test
  void mixedStrategyAdvertisesOneResourcePerProfileWithMigUuids() throws Exception {
    KubeletDeviceManager k = startMixed();
    await()
        .atMost(WAIT)
        .until(
            () ->
                k.resources()
                    .equals(
                        Set.of(
                            "nvidia.com/mig-1g.10gb",
                            "nvidia.com/mig-2g.20gb",
                            "nvidia.com/mig-3g.40gb")));
    await().atMost(WAIT).until(() -> k.devices("nvidia.com/mig-3g.40gb").size() == 2);
    assertThat(k.devices("nvidia.com/mig-1g.10gb")).hasSize(4);
    assertThat(k.devices("nvidia.com/mig-2g.20gb")).hasSize(2);
    assertThat(k.devices(GPU)).isEmpty();
    Set<String> migUuids =
        h.backend.allMigDevices().stream()
            .filter(m -> m.profile().name().equals("1g.10gb"))
            .map(MigDevice::uuid)
            .collect(Collectors.toSet());
    assertThat(k.devices("nvidia.com/mig-1g.10gb").keySet()).isEqualTo(migUuids);
    assertThat(migUuids).allMatch(u -> u.startsWith("MIG-"));
    assertThat(k.pluginDir().resolve("nvidia-mig-1g.10gb.sock")).exists();
  }

  @Test
  void singleStrategyAdvertisesMigDevicesAsGpus() throws Exception {
    String profile =
        """
        driverVersion: 550.54.15
        cudaVersion: "12.4"
        gpus:
          - model: H100-SXM5-80GB
            count: 2
            mig: {enabled: true, devices: {1g.10gb: 7}}
        """;
    h =
        new PluginHarness(
            dir, profile, DevicePluginSettings.defaults().withMigStrategy(MigStrategy.SINGLE));
    await().atMost(WAIT).until(() -> h.kubelet.devices(GPU).size() == 14);
    assertThat(h.kubelet.devices(GPU).keySet()).allMatch(id -> id.startsWith("MIG-"));
  }

  @Test
  void noneStrategyIgnoresMigAndAdvertisesWholeGpus() throws Exception {
    start(PluginHarness.H100X2_MIXED);
    await().atMost(WAIT).until(() -> h.kubelet.devices(GPU).size() == 2);
    assertThat(h.kubelet.devices(GPU).keySet()).allMatch(id -> id.startsWith("GPU-"));
  }

  @Test
  void timeSlicingAdvertisesFourReplicasPerGpuUnderTheSharedName() throws Exception {
    Sharing sharing = new Sharing(SharingStrategy.TIME_SLICING, true, true, Map.of(GPU, 4));
    h =
        new PluginHarness(
            dir, PluginHarness.H100X8, DevicePluginSettings.defaults().withSharing(sharing));
    String shared = GPU + ".shared";
    await().atMost(WAIT).until(() -> h.kubelet.devices(shared).size() == 32);
    assertThat(h.kubelet.pluginDir().resolve("nvidia-gpu.shared.sock")).exists();
    String uuid0 = h.backend.devices().get(0).uuid();
    assertThat(h.kubelet.devices(shared))
        .containsKeys(uuid0 + "::0", uuid0 + "::1", uuid0 + "::2", uuid0 + "::3");

    // Distributed: two replicas land on two different GPUs; the env names the GPUs, not replicas.
    Admission one = h.kubelet.admit(pod("a", shared, 1));
    Admission two = h.kubelet.admit(pod("b", shared, 1));
    String gpuA = PluginDevice.stripReplica(one.assignment().deviceIds(shared).get(0));
    String gpuB = PluginDevice.stripReplica(two.assignment().deviceIds(shared).get(0));
    assertThat(gpuA).isNotEqualTo(gpuB);
    assertThat(one.assignment().containers().get(0).response().getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", gpuA);

    // failRequestsGreaterThanOne: the original's refusal, and the pod fails with it.
    Admission big = h.kubelet.admit(pod("c", shared, 2));
    assertThat(big.admitted()).isFalse();
    assertThat(big.message())
        .isEqualTo(
            "Allocate failed due to rpc error: code = Unknown desc = invalid allocation request"
                + " for \"nvidia.com/gpu.shared\": invalid request: maximum request size for"
                + " shared resources is 1, which is unexpected");
  }

  @Test
  void allocateAnswersForEachDeviceListStrategy() throws Exception {
    Path devRoot = Files.createDirectories(dir.resolve("devroot/dev"));
    Files.createFile(devRoot.resolve("nvidiactl"));
    DevicePluginSettings base =
        new DevicePluginSettings(
            MigStrategy.NONE,
            true,
            dir.resolve("devroot"),
            null,
            List.of(DeviceListStrategy.ENVVAR),
            DeviceIdStrategy.UUID,
            true,
            "cdi.k8s.io/",
            AllocationPolicy.DISTRIBUTED,
            Sharing.NONE,
            null,
            true,
            false,
            false);
    h = new PluginHarness(dir.resolve("kubelet"), PluginHarness.H100X8, base);
    await().atMost(WAIT).until(() -> h.kubelet.devices(GPU).size() == 8);
    GpuDevice g0 = h.backend.devices().get(0);
    GpuDevice g1 = h.backend.devices().get(1);
    List<String> ids = List.of(g0.uuid(), g1.uuid());

    ContainerAllocateResponse env = allocate(ids);
    assertThat(env.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", g0.uuid() + "," + g1.uuid())
        .containsEntry("NVIDIA_GDRCOPY", "enabled");
    String root = dir.resolve("devroot").toString();
    assertThat(env.getDevicesList())
        .extracting(d -> d.getContainerPath() + ">" + d.getHostPath() + ":" + d.getPermissions())
        .containsExactly(
            "/dev/nvidiactl>" + root + "/dev/nvidiactl:rw",
            "/dev/nvidia" + g0.minor() + ">" + root + "/dev/nvidia" + g0.minor() + ":rw",
            "/dev/nvidia" + g1.minor() + ">" + root + "/dev/nvidia" + g1.minor() + ":rw");

    reload(
        base.withDeviceList(
            List.of(DeviceListStrategy.VOLUME_MOUNTS), DeviceIdStrategy.INDEX, false));
    ContainerAllocateResponse mounts = allocate(ids);
    assertThat(mounts.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "/var/run/nvidia-container-devices");
    assertThat(mounts.getMountsList())
        .extracting(m -> m.getHostPath() + ">" + m.getContainerPath())
        .containsExactly(
            "/dev/null>/var/run/nvidia-container-devices/0",
            "/dev/null>/var/run/nvidia-container-devices/1");
    assertThat(mounts.getDevicesList()).isEmpty();

    reload(
        base.withDeviceList(
            List.of(DeviceListStrategy.CDI_ANNOTATIONS), DeviceIdStrategy.UUID, true));
    ContainerAllocateResponse annotations = allocate(ids);
    assertThat(annotations.getEnvsMap()).isEmpty();
    assertThat(annotations.getDevicesList()).isEmpty();
    assertThat(annotations.getAnnotationsMap()).hasSize(1);
    var entry = annotations.getAnnotationsMap().entrySet().iterator().next();
    assertThat(entry.getKey()).matches("cdi\\.k8s\\.io/nvidia-device-plugin_[0-9a-f-]{36}");
    assertThat(entry.getValue())
        .isEqualTo(
            "k8s.device-plugin.nvidia.com/gpu="
                + g0.uuid()
                + ",k8s.device-plugin.nvidia.com/gpu="
                + g1.uuid());

    reload(base.withDeviceList(List.of(DeviceListStrategy.CDI_CRI), DeviceIdStrategy.UUID, false));
    ContainerAllocateResponse cri = allocate(ids);
    assertThat(cri.getCdiDevicesList())
        .extracting(d -> d.getName())
        .containsExactly(
            "k8s.device-plugin.nvidia.com/gpu=" + g0.uuid(),
            "k8s.device-plugin.nvidia.com/gpu=" + g1.uuid());
    assertThat(cri.getAnnotationsMap()).isEmpty();
    assertThat(cri.getEnvsMap()).isEmpty();
  }

  @Test
  void unknownDeviceIdIsRefusedWithTheOriginalsText() throws Exception {
    start(PluginHarness.H100X8);
    await().atMost(WAIT).until(() -> h.kubelet.devices(GPU).size() == 8);
    ManagedChannel ch = UnixSockets.channel(h.kubelet.pluginDir().resolve("nvidia-gpu.sock"));
    try {
      var stub = DevicePluginGrpc.newBlockingStub(ch);
      assertThatThrownBy(
              () ->
                  stub.allocate(
                      AllocateRequest.newBuilder()
                          .addContainerRequests(
                              ContainerAllocateRequest.newBuilder().addDevicesIds("GPU-nope"))
                          .build()))
          .hasMessage(
              "UNKNOWN: invalid allocation request for \"nvidia.com/gpu\": unknown device:"
                  + " [GPU-nope]");
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void xidHealthIgnoredCriticalAndRecovered() throws Exception {
    h =
        new PluginHarness(
            dir,
            PluginHarness.H100X8,
            DevicePluginSettings.defaults(),
            Map.of(),
            Duration.ofSeconds(3),
            null,
            "node-a");
    KubeletDeviceManager k = h.kubelet;
    await()
        .atMost(WAIT)
        .until(() -> k.allocatableDevices().getOrDefault(GPU, List.of()).size() == 8);
    String g2 = h.backend.devices().get(2).uuid();
    String g5 = h.backend.devices().get(5).uuid();

    // Ignored (application) XIDs first, then a critical one on another GPU: when that one shows,
    // the earlier events have been processed and left GPU 2 healthy.
    h.backend.injectXid(2, 13);
    h.backend.injectXid(2, 94);
    h.backend.injectXid(5, 79);
    await().atMost(WAIT).until(() -> health(k, g5).equals(DevicePluginConstants.UNHEALTHY));
    assertThat(health(k, g2)).isEqualTo(DevicePluginConstants.HEALTHY);
    assertThat(k.allocatableDevices().get(GPU)).hasSize(7);
    assertThat(h.agent.unhealthyReason(g5)).isEqualTo("XID 79");

    // No new critical event for the quiet period: healthy again.
    await().atMost(WAIT).until(() -> health(k, g5).equals(DevicePluginConstants.HEALTHY));
    assertThat(k.allocatableDevices().get(GPU)).hasSize(8);
  }

  @Test
  void envOverridesTheIgnoreList() throws Exception {
    h =
        new PluginHarness(
            dir,
            PluginHarness.H100X8,
            DevicePluginSettings.defaults(),
            Map.of("DP_ENABLE_HEALTHCHECKS", "13", "DP_DISABLE_HEALTHCHECKS", "79"),
            Duration.ZERO,
            null,
            "node-a");
    KubeletDeviceManager k = h.kubelet;
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 8);
    String g0 = h.backend.devices().get(0).uuid();
    String g1 = h.backend.devices().get(1).uuid();
    h.backend.injectXid(1, 79);
    h.backend.injectXid(0, 13);
    await().atMost(WAIT).until(() -> health(k, g0).equals(DevicePluginConstants.UNHEALTHY));
    assertThat(health(k, g1)).isEqualTo(DevicePluginConstants.HEALTHY);
  }

  @Test
  void migXidMarksOnlyItsInstanceAndBackendFailureMarksAll() throws Exception {
    KubeletDeviceManager k = startMixed();
    String res = "nvidia.com/mig-1g.10gb";
    await().atMost(WAIT).until(() -> k.devices(res).size() == 4);
    MigDevice target =
        h.backend.migDevices(1).stream()
            .filter(m -> m.profile().name().equals("1g.10gb"))
            .findFirst()
            .orElseThrow();
    h.backend.injectXid(1, target.gpuInstanceId(), target.computeInstanceId(), 48);
    await().atMost(WAIT).until(() -> health(k, res, target.uuid()).equals("Unhealthy"));
    assertThat(k.devices(res).values().stream().filter(d -> d.getHealth().equals("Unhealthy")))
        .hasSize(1);
    assertThat(k.devices("nvidia.com/mig-3g.40gb").values())
        .allMatch(d -> d.getHealth().equals("Healthy"));

    h.backend.failEvents(
        GpuBackendException.of(GpuError.GPU_IS_LOST, "nvmlEventSetWait: GPU is lost"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                k.devices("nvidia.com/mig-3g.40gb").values().stream()
                    .allMatch(d -> d.getHealth().equals("Unhealthy")));
    assertThat(h.agent.unhealthyReason(h.backend.devices().get(0).uuid()))
        .isEqualTo("GPU backend failed: nvmlEventSetWait: GPU is lost");
  }

  @Test
  void reRegistersEveryResourceWhenKubeletSocketIsRecreated() throws Exception {
    KubeletDeviceManager k = startMixed();
    // Connected is not yet listed: admission needs the resource's devices streamed.
    await()
        .atMost(WAIT)
        .until(() -> k.resources().size() == 3 && !k.devices("nvidia.com/mig-2g.20gb").isEmpty());
    Admission before = k.admit(pod("kept", "nvidia.com/mig-2g.20gb", 1));
    assertThat(before.admitted()).isTrue();

    long t0 = System.nanoTime();
    k.restart();
    assertThat(k.resources()).isEmpty();
    // The design bound is 5 s (inotify plus a 1 s check); the wait is wider so that a loaded CI
    // machine does not fail the test, and the time taken is logged instead.
    await()
        .atMost(WAIT)
        .until(
            () ->
                k.resources().size() == 3
                    && k.registrations("nvidia.com/mig-1g.10gb") >= 2
                    && k.registrations("nvidia.com/mig-2g.20gb") >= 2
                    && k.registrations("nvidia.com/mig-3g.40gb") >= 2);
    System.out.printf(
        "re-registered 3 resources %d ms after kubelet.sock was re-created%n",
        (System.nanoTime() - t0) / 1_000_000);
    await().atMost(WAIT).until(() -> k.devices("nvidia.com/mig-1g.10gb").size() == 4);
    assertThat(k.assignments()).extracting(a -> a.name()).containsExactly("kept");
  }

  @Test
  void aCrashedResourceServerRestartsAlone() throws Exception {
    KubeletDeviceManager k = startMixed();
    await().atMost(WAIT).until(() -> k.resources().size() == 3);
    h.agent.servers().get("nvidia.com/mig-2g.20gb").grpcServer().shutdownNow();
    await().atMost(WAIT).until(() -> k.registrations("nvidia.com/mig-2g.20gb") == 2);
    await().atMost(WAIT).until(() -> k.resources().size() == 3);
    assertThat(k.registrations("nvidia.com/mig-1g.10gb")).isEqualTo(1);
    assertThat(k.registrations("nvidia.com/mig-3g.40gb")).isEqualTo(1);

    // A socket removed behind its back counts as a crash too.
    Files.delete(k.pluginDir().resolve("nvidia-mig-3g.40gb.sock"));
    await().atMost(WAIT).until(() -> k.registrations("nvidia.com/mig-3g.40gb") == 2);
    assertThat(k.registrations("nvidia.com/mig-1g.10gb")).isEqualTo(1);
  }

  @Test
  void reloadToTimeSlicingKeepsRunningAllocations() throws Exception {
    KubeletDeviceManager k = start(PluginHarness.H100X8);
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 8);
    Admission running = k.admit(pod("training", GPU, 2));
    assertThat(running.admitted()).isTrue();

    Sharing sharing = new Sharing(SharingStrategy.TIME_SLICING, false, false, Map.of(GPU, 4));
    h.agent.reload(DevicePluginSettings.defaults().withSharing(sharing));
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 32);
    assertThat(k.registrations(GPU)).isEqualTo(2);
    assertThat(k.assignments()).containsExactly(running.assignment());
  }

  private void reload(DevicePluginSettings s) throws Exception {
    int before = h.kubelet.registrations(GPU);
    h.agent.reload(s);
    await().atMost(WAIT).until(() -> h.kubelet.registrations(GPU) == before + 1);
    await().atMost(WAIT).until(() -> h.kubelet.resources().contains(GPU));
  }

  private ContainerAllocateResponse allocate(List<String> ids) {
    ManagedChannel ch = UnixSockets.channel(h.kubelet.pluginDir().resolve("nvidia-gpu.sock"));
    try {
      return DevicePluginGrpc.newBlockingStub(ch)
          .allocate(
              AllocateRequest.newBuilder()
                  .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids))
                  .build())
          .getContainerResponses(0);
    } finally {
      ch.shutdownNow();
    }
  }

  private static String health(KubeletDeviceManager k, String uuid) {
    return health(k, GPU, uuid);
  }

  private static String health(KubeletDeviceManager k, String resource, String id) {
    Device d = k.devices(resource).get(id);
    return d == null ? "absent" : d.getHealth();
  }

  /**
   * A rolling update with surge: the new pod's plugin serves next to the old one on a socket of its
   * own and registers; the old one stops. With a clean handover (the simulated kubelet's default)
   * the node's allocatable GPUs never drop, and the old plugin, cut off by the kubelet, does not
   * register again over its successor.
   */
  @Test
  void surgeHandoverKeepsTheGpusAllocatableAndTheOldPluginStepsAside() throws Exception {
    KubeletDeviceManager k = start(PluginHarness.H100X8);
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 8);
    AllocatableSampler sampler = new AllocatableSampler(k);
    try (DevicePluginAgent next = h.newAgent(Map.of(), Duration.ZERO)) {
      await().atMost(WAIT).until(() -> k.registrations(GPU) == 2);
      assertThat(next.servers().get(GPU).socket().getFileName()).hasToString("nvidia-gpu-1.sock");
      assertThat(h.agent.servers().get(GPU).superseded()).isTrue();
      h.agent.close();
      Thread.sleep(1000); // time for a wrong re-registration of the old plugin
      assertThat(k.registrations(GPU)).as("the old plugin stepped aside").isEqualTo(2);
      assertThat(k.devices(GPU)).hasSize(8);
      assertThat(k.pluginDir().resolve("nvidia-gpu.sock")).doesNotExist();
      sampler.close();
      assertThat(sampler.fewest())
          .as("fewest allocatable GPUs seen during the handover")
          .isEqualTo(8);
    }
  }

  /**
   * The same handover against the real kubelet's (1.36) behaviour: the old plugin's stream ending
   * disconnects the new plugin, which registers again at once and ends up serving every GPU.
   */
  @Test
  void surgeHandoverUnderTheRealKubeletsRulesRegistersTheNewPluginAgain() throws Exception {
    start(PluginHarness.H100X8);
    KubeletDeviceManager k = h.kubelet.kubelet136Handover(true);
    await().atMost(WAIT).until(() -> k.devices(GPU).size() == 8);
    try (DevicePluginAgent next = h.newAgent(Map.of(), Duration.ZERO)) {
      await().atMost(WAIT).until(() -> k.registrations(GPU) == 2);
      AllocatableSampler sampler = new AllocatableSampler(k);
      h.agent.close();
      await().atMost(WAIT).until(() -> k.registrations(GPU) == 3);
      await()
          .atMost(WAIT)
          .until(() -> k.allocatableDevices().getOrDefault(GPU, List.of()).size() == 8);
      sampler.close();
      assertThat(next.servers().get(GPU).registered()).isTrue();
      // Not asserted: how long the kubelet saw none (it publishes node status every 10 s).
      System.out.printf(
          "real-kubelet handover: fewest allocatable %d, none for %d ms%n",
          sampler.fewest(), sampler.darkMillis());
    }
  }

  /** Samples the kubelet's allocatable GPUs every millisecond until closed. */
  private static final class AllocatableSampler implements AutoCloseable {
    private final java.util.concurrent.atomic.AtomicInteger fewest =
        new java.util.concurrent.atomic.AtomicInteger(Integer.MAX_VALUE);
    private final java.util.concurrent.atomic.AtomicLong dark =
        new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean running = true;
    private final Thread thread;

    AllocatableSampler(KubeletDeviceManager k) {
      thread =
          new Thread(
              () -> {
                long darkSince = -1;
                while (running) {
                  int n = k.allocatableDevices().getOrDefault(GPU, List.of()).size();
                  fewest.accumulateAndGet(n, Math::min);
                  long now = System.nanoTime();
                  if (n == 0 && darkSince < 0) {
                    darkSince = now;
                  } else if (n > 0 && darkSince >= 0) {
                    dark.addAndGet(now - darkSince);
                    darkSince = -1;
                  }
                  try {
                    Thread.sleep(1);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "allocatable-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    int fewest() {
      return fewest.get();
    }

    long darkMillis() {
      return dark.get() / 1_000_000;
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join();
    }
  }
}
