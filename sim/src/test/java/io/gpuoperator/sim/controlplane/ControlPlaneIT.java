package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A full control plane (with controller-manager and scheduler) binds only to loopback and leaves
 * nothing behind.
 */
class ControlPlaneIT {

  @Test
  void everythingListensOnLoopbackAndStopsCleanly() throws Exception {
    List<Long> pids;
    Path dir;
    try (ControlPlane cp =
        ControlPlane.builder()
            .controllerManager(true)
            .scheduler(true)
            .nodes(List.of("node-a"))
            .start()) {
      dir = cp.directory();
      pids = cp.pids();
      assertThat(pids).hasSize(4);

      Set<String> listening = listeningAddresses(pids);
      assertThat(listening).isNotEmpty();
      assertThat(listening).allSatisfy(addr -> assertThat(addr).startsWith("127.0.0.1:"));

      KubernetesClient admin = cp.client();
      // Version-stamped binaries: discovery reports the pinned release, not v0.0.0.
      assertThat(ControlPlane.K8S_VERSION).startsWith("v1.36.");
      assertThat(admin.getKubernetesVersion().getGitVersion()).isEqualTo(ControlPlane.K8S_VERSION);
      // What later capabilities build on is served by default: policy/v1 Eviction (driver
      // upgrades) and resource.k8s.io/v1 (Dynamic Resource Allocation).
      assertThat(admin.getApiResources("v1").getResources())
          .anySatisfy(
              r -> {
                assertThat(r.getName()).isEqualTo("pods/eviction");
                assertThat(r.getGroup() + "/" + r.getVersion()).isEqualTo("policy/v1");
              });
      assertThat(admin.getApiResources("resource.k8s.io/v1").getResources())
          .extracting(r -> r.getName())
          .contains("resourceslices", "resourceclaims", "deviceclasses");
      try (KubernetesClient node = cp.nodeClient("node-a")) {
        // The Node authorizer (with selectors, GA since 1.34) lets a node read only its own Node.
        node.nodes()
            .resource(
                new io.fabric8.kubernetes.api.model.NodeBuilder()
                    .withNewMetadata()
                    .withName("node-a")
                    .endMetadata()
                    .build())
            .create();
        assertThat(node.nodes().withName("node-a").get()).isNotNull();
        assertThatThrownBy(() -> node.nodes().list())
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("only its own Node object");
      }
      assertThat(Files.readString(cp.kubeconfig())).contains(cp.apiServerUrl());
    }
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("process %d is gone", pid)
          .isFalse();
    }
    assertThat(dir).doesNotExist();
  }

  /** Local addresses of the LISTEN TCP sockets these processes own, as "a.b.c.d:port". */
  static Set<String> listeningAddresses(List<Long> pids) throws IOException {
    Set<String> inodes = new HashSet<>();
    for (long pid : pids) {
      try (Stream<Path> fds = Files.list(Paths.get("/proc", Long.toString(pid), "fd"))) {
        fds.forEach(
            fd -> {
              try {
                String target = Files.readSymbolicLink(fd).toString();
                if (target.startsWith("socket:[")) {
                  inodes.add(target.substring(8, target.length() - 1));
                }
              } catch (IOException e) {
                // fd closed meanwhile
              }
            });
      }
    }
    Set<String> out = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Paths.get(table));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f[3].equals("0A") && inodes.contains(f[9])) {
          out.add(decode(f[1]));
        }
      }
    }
    return out;
  }

  private static String decode(String hexAddr) {
    String[] parts = hexAddr.split(":");
    String ip = parts[0];
    int port = Integer.parseInt(parts[1], 16);
    if (ip.length() == 8) {
      return ipv4(ip) + ":" + port;
    }
    // IPv6: ::ffff:127.0.0.1 maps to loopback; anything else is reported as is.
    if (ip.startsWith("0000000000000000FFFF0000")) {
      return ipv4(ip.substring(24)) + ":" + port;
    }
    return "[" + ip + "]:" + port;
  }

  private static String ipv4(String le) {
    return Integer.parseInt(le.substring(6, 8), 16)
        + "."
        + Integer.parseInt(le.substring(4, 6), 16)
        + "."
        + Integer.parseInt(le.substring(2, 4), 16)
        + "."
        + Integer.parseInt(le.substring(0, 2), 16);
  }
}
