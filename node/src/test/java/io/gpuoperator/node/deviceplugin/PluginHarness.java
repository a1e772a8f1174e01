package io.gpuoperator.node.deviceplugin;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.node.gpu.XidPolicy;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * A simulated node for component tests: a {@link SimulatedBackend}, the kubelet side of the
 * device-plugin API and the plugin agent, talking over real Unix sockets in a temp directory.
 */
final class PluginHarness implements AutoCloseable {
  static final String H100X8 = "numaNodes: 2\ngpus: [{model: H100-SXM5-80GB, count: 8}]\n";

  static final String H100X2_MIXED =
      """
      gpus:
        - model: H100-SXM5-80GB
          count: 2
          mig: {enabled: true, devices: {1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1}}
      """;

  final SimulatedBackend backend;
  final KubeletDeviceManager kubelet;
  final DevicePluginAgent agent;
  private final DevicePluginSettings settings;

  PluginHarness(
      Path dir,
      String profileYaml,
      DevicePluginSettings settings,
      Map<String, String> env,
      Duration recovery,
      KubernetesClient client,
      String nodeName)
      throws IOException {
    backend = TestNodes.backend(profileYaml, nodeName);
    kubelet = new KubeletDeviceManager(nodeName, dir, client).start();
    this.settings = settings;
    agent = newAgent(env, recovery);
  }

  /** Another plugin process on this node (the next pod of a rolling update), started. */
  DevicePluginAgent newAgent(Map<String, String> env, Duration recovery) throws IOException {
    return new DevicePluginAgent(
            backend,
            settings,
            kubelet.kubeletSocket(),
            null,
            XidPolicy.fromEnv(env),
            recovery,
            Duration.ofMillis(100))
        .start();
  }

  PluginHarness(Path dir, String profileYaml, DevicePluginSettings settings) throws IOException {
    this(dir, profileYaml, settings, Map.of(), Duration.ZERO, null, "node-a");
  }

  /** A pod whose one container, {@code cuda}, asks for {@code count} of {@code resource}. */
  static PodBuilder gpuPod(String name, String resource, int count) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("cuda")
        .withNewResources()
        .addToLimits(resource, new Quantity(Integer.toString(count)))
        .endResources()
        .endContainer()
        .endSpec();
  }

  /** {@link #gpuPod} as the kubelet would see it once created: a namespace and a UID. */
  static Pod pod(String name, String resource, int count) {
    return gpuPod(name, resource, count)
        .editMetadata()
        .withNamespace("default")
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .build();
  }

  @Override
  public void close() {
    agent.close();
    kubelet.close();
    backend.close();
  }
}
