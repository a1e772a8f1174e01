package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreferredAllocatorTest {
  /**
   * 8 GPUs: 0-3 on NUMA node 0, 4-7 on node 1; NVLink only within pairs (0,1) (2,3) (4,5) (6,7).
   */
  private static LinkScores pairs() {
    int[][] s = new int[8][8];
    for (int a = 0; a < 8; a++) {
      for (int b = 0; b < 8; b++) {
        if (a != b) {
          s[a][b] = (a / 4 == b / 4) ? 30 : 10;
          if (a / 2 == b / 2) {
            s[a][b] += 200;
          }
        }
      }
    }
    return new LinkScores(s);
  }

  private static ResourceSet gpus(int n) {
    List<PluginDevice> devices = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      devices.add(
          new PluginDevice("GPU-" + i, "GPU-" + i, "" + i, i, -1, -1, List.of(), i / 4, -1));
    }
    return new ResourceSet(PluginNames.GPU_RESOURCE, devices, 1);
  }

  @Test
  void picksTheNvlinkedPairAmongScatteredGpus() {
    var a = new PreferredAllocator(gpus(8), pairs(), AllocationPolicy.DISTRIBUTED);
    assertThat(a.preferred(List.of("GPU-0", "GPU-2", "GPU-3", "GPU-5", "GPU-6"), List.of(), 2))
        .containsExactlyInAnyOrder("GPU-2", "GPU-3");
  }

  @Test
  void fourGpusStayOnOneNumaNodeWithTwoNvlinkPairs() {
    var a = new PreferredAllocator(gpus(8), pairs(), AllocationPolicy.DISTRIBUTED);
    List<String> all = gpus(8).devices().stream().map(PluginDevice::id).toList();
    assertThat(a.preferred(all, List.of(), 4))
        .containsExactlyInAnyOrder("GPU-0", "GPU-1", "GPU-2", "GPU-3");
    // With GPU 1 taken, the other NUMA node has the better set.
    List<String> without1 = all.stream().filter(id -> !id.equals("GPU-1")).toList();
    assertThat(a.preferred(without1, List.of(), 4))
        .containsExactlyInAnyOrder("GPU-4", "GPU-5", "GPU-6", "GPU-7");
  }

  @Test
  void mustIncludeIsKeptAndItsPartnerAdded() {
    var a = new PreferredAllocator(gpus(8), pairs(), AllocationPolicy.DISTRIBUTED);
    List<String> all = gpus(8).devices().stream().map(PluginDevice::id).toList();
    assertThat(a.preferred(all, List.of("GPU-5"), 2)).containsExactly("GPU-5", "GPU-4");
  }

  @Test
  void greedyBeyondTheExhaustiveLimitStillAnswersFast() {
    int n = 64;
    int[][] s = new int[n][n];
    for (int x = 0; x < n; x++) {
      for (int y = 0; y < n; y++) {
        s[x][y] = x != y && x / 8 == y / 8 ? 100 : 1;
      }
    }
    var a = new PreferredAllocator(gpus(n), new LinkScores(s), AllocationPolicy.DISTRIBUTED);
    List<String> all = gpus(n).devices().stream().map(PluginDevice::id).toList();
    List<String> chosen = a.preferred(all, List.of(), 8);
    assertThat(chosen).hasSize(8);
    assertThat(chosen.stream().map(id -> Integer.parseInt(id.substring(4)) / 8).distinct())
        .hasSize(1);
  }

  @Test
  void replicasAreDistributedOrPacked() {
    List<PluginDevice> devices = new ArrayList<>();
    for (String uuid : List.of("GPU-a", "GPU-b")) {
      PluginDevice d =
          new PluginDevice(
              uuid, uuid, uuid.equals("GPU-a") ? "0" : "1", 0, -1, -1, List.of(), 0, -1);
      for (int r = 0; r < 4; r++) {
        devices.add(d.replica(r));
      }
    }
    ResourceSet shared = new ResourceSet(PluginNames.GPU_RESOURCE, devices, 4);
    // GPU-b already has two replicas in use.
    List<String> available =
        List.of("GPU-a::0", "GPU-a::1", "GPU-a::2", "GPU-a::3", "GPU-b::2", "GPU-b::3");
    var distributed =
        new PreferredAllocator(shared, LinkScores.flat(2), AllocationPolicy.DISTRIBUTED);
    var packed = new PreferredAllocator(shared, LinkScores.flat(2), AllocationPolicy.PACKED);
    assertThat(distributed.preferred(available, List.of(), 1)).containsExactly("GPU-a::0");
    assertThat(packed.preferred(available, List.of(), 1)).containsExactly("GPU-b::2");
    // Usage evens out: a goes 0→3 (ties broken by order), b takes the fourth.
    assertThat(distributed.preferred(available, List.of(), 4))
        .containsExactly("GPU-a::0", "GPU-a::1", "GPU-a::2", "GPU-b::2");
  }
}
