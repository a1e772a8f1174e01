package io.gpuoperator.node.exporter;

import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A real exporter on 127.0.0.1 over a simulated node, with a real pod-resources server (over its
 * Unix socket) reporting the pods the test describes.
 */
final class ExporterHarness implements AutoCloseable {
  final SimulatedBackend gpus;
  final PodResourcesStub kubelet;
  final ExporterAgent agent;

  ExporterHarness(
      String nodeProfile, Clock clock, Path dir, long intervalMs, Map<String, String> env)
      throws IOException {
    this(nodeProfile, clock, dir, intervalMs, env, false);
  }

  /** With {@code sharedServer}: served on the JVM's {@link SelectorHttpServer}, as in simulate. */
  ExporterHarness(
      String nodeProfile,
      Clock clock,
      Path dir,
      long intervalMs,
      Map<String, String> env,
      boolean sharedServer)
      throws IOException {
    gpus = new SimulatedBackend(HardwareProfiles.node(nodeProfile), "gpu-node-1", clock);
    kubelet = new PodResourcesStub(dir.resolve("pod-resources/kubelet.sock"));
    Map<String, String> e = new java.util.HashMap<>(env);
    e.putIfAbsent(ExporterSettings.ENV_KUBERNETES, "true");
    e.put(ExporterSettings.ENV_LISTEN, "127.0.0.1:0");
    e.put(ExporterSettings.ENV_INTERVAL, Long.toString(intervalMs));
    e.put(ExporterSettings.ENV_POD_RESOURCES_SOCKET, kubelet.socket().toString());
    e.put(ExporterSettings.ENV_NODE_NAME, "gpu-node-1");
    ExporterSettings s = ExporterSettings.fromEnv(e, "localhost");
    FieldList fields =
        s.collectors() == null ? FieldList.builtIn() : FieldList.load(s.collectors());
    agent = ExporterAgent.start(s, fields, gpus, sharedServer);
  }

  /** Pods holding devices: every MIG device (or GPU) in turn, {@code count} pods in all. */
  ListPodResourcesResponse pods(int count) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add("job-" + i);
    }
    return pods(names);
  }

  /** Pods with these names holding devices: every MIG device (or GPU) in turn. */
  ListPodResourcesResponse pods(List<String> names) {
    int count = names.size();
    List<String> ids = new ArrayList<>();
    for (GpuDevice d : gpus.devices()) {
      List<MigDevice> migs = gpus.migDevices(d.index());
      if (migs.isEmpty()) {
        ids.add(d.uuid());
      } else {
        migs.forEach(m -> ids.add(m.uuid()));
      }
    }
    List<PodResources> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = ids.get(i % ids.size());
      String resource = id.startsWith("MIG-") ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu";
      if (i >= ids.size()) {
        // More pods than devices: the rest share devices as time-sliced replicas.
        id = id + "::" + (i / ids.size());
      }
      pods.add(
          PodResourcesStub.pod("team-" + (i % 3), names.get(i), "main", resource, List.of(id)));
    }
    return PodResourcesStub.of(pods.toArray(PodResources[]::new));
  }

  String url(String path) {
    return "http://127.0.0.1:" + agent.port() + path;
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", agent.port());
  }

  HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path)));
    if (accept != null) {
      b.header("Accept", accept);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The value of the first sample of a text exposition whose line {@code series} accepts (the value
   * is the line's last field: the exporter writes no timestamps).
   *
   * @param what the series, for the failure when there is none
   */
  static double sample(String body, Predicate<String> series, String what) {
    String line =
        body.lines()
            .filter(series)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no " + what + " served"));
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  @Override
  public void close() {
    agent.close();
    kubelet.close();
    gpus.close();
  }
}
