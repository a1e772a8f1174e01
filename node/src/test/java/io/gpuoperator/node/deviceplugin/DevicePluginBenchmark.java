package io.gpuoperator.node.deviceplugin;

import static org.awaitility.Awaitility.await;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Latency of Allocate and GetPreferredAllocation over the plugin's Unix socket, for 8 whole GPUs
 * and 56 MIG devices. Not a test: prints percentiles for BENCHMARKS.md. Run with {@code
 * -Dtest=DevicePluginBenchmark -Dbenchmark=true}.
 */
class DevicePluginBenchmark {
  private static final int WARMUP = 2000;
  private static final int RUNS = 5000;

  @TempDir Path dir;

  @Test
  void latencies() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("benchmark"), "run with -Dbenchmark=true");
    String h100x8 =
        """
        driverVersion: 550.54.15
        cudaVersion: "12.4"
        numaNodes: 2
        gpus: [{model: H100-SXM5-80GB, count: 8}]
        """;
    String mig56 =
        """
        driverVersion: 550.54.15
        cudaVersion: "12.4"
        numaNodes: 2
        gpus: [{model: H100-SXM5-80GB, count: 8, mig: {enabled: true, devices: {1g.10gb: 7}}}]
        """;
    DevicePluginSettings specs =
        DevicePluginSettings.defaults()
            .withDeviceList(List.of(DeviceListStrategy.ENVVAR), DeviceIdStrategy.UUID, true);
    bench("8 GPUs", dir.resolve("a"), h100x8, specs, "nvidia.com/gpu", "nvidia-gpu.sock");
    bench(
        "56 MIG 1g.10gb",
        dir.resolve("b"),
        mig56,
        specs.withMigStrategy(MigStrategy.MIXED),
        "nvidia.com/mig-1g.10gb",
        "nvidia-mig-1g.10gb.sock");
  }

  private void bench(
      String label,
      Path kubeletDir,
      String profile,
      DevicePluginSettings settings,
      String resource,
      String socket)
      throws Exception {
    try (PluginHarness h = new PluginHarness(kubeletDir, profile, settings)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !h.kubelet.devices(resource).isEmpty());
      List<String> ids = new ArrayList<>(h.kubelet.devices(resource).keySet());
      ManagedChannel ch = UnixSockets.channel(h.kubelet.pluginDir().resolve(socket));
      try {
        var stub = DevicePluginGrpc.newBlockingStub(ch);
        for (int size : new int[] {1, 4}) {
          var allocate =
              AllocateRequest.newBuilder()
                  .addContainerRequests(
                      ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids.subList(0, size)))
                  .build();
          report(label, "Allocate " + size, () -> stub.allocate(allocate));
          var preferred =
              PreferredAllocationRequest.newBuilder()
                  .addContainerRequests(
                      ContainerPreferredAllocationRequest.newBuilder()
                          .addAllAvailableDeviceIDs(ids)
                          .setAllocationSize(size))
                  .build();
          report(
              label,
              "GetPreferredAllocation " + size + " of " + ids.size(),
              () -> stub.getPreferredAllocation(preferred));
        }
      } finally {
        ch.shutdownNow();
      }
    }
  }

  private static void report(String label, String call, Supplier<?> rpc) {
    for (int i = 0; i < WARMUP; i++) {
      rpc.get();
    }
    long[] nanos = new long[RUNS];
    for (int i = 0; i < RUNS; i++) {
      long t0 = System.nanoTime();
      rpc.get();
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    System.out.printf(
        Locale.ROOT,
        "BENCH %-15s %-32s p50 %.3f ms  p99 %.3f ms  max %.3f ms  (n=%d)%n",
        label,
        call,
        nanos[RUNS / 2] / 1e6,
        nanos[(int) (RUNS * 0.99)] / 1e6,
        nanos[RUNS - 1] / 1e6,
        RUNS);
  }
}
