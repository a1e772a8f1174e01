package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
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
      assertThat(admin.getKubernetesVersion().getGitVersion()).isEqualTo("v1.20.2");
      try (KubernetesClient node = cp.nodeClient("node-a")) {
        // The Node authorizer lets a node read nodes but not list secrets cluster-wide.
        assertThat(node.nodes().list().getItems()).isNotNull();
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
