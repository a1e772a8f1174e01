package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.node.cdi.CdiSchema;
import io.gpuoperator.node.gpu.XidPolicy;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecModelTest {
  @TempDir Path dir;

  @Test
  void everyCdiNameTheAllocateAnswerUsesIsADeviceOfTheWrittenSpec() throws Exception {
    String yaml =
        """
        gpus:
          - {model: A100-SXM4-40GB, count: 1, mig: {enabled: true, devices: {3g.20gb: 2}}}
          - {model: A100-SXM4-40GB, count: 1}
        """;
    DevicePluginSettings settings =
        DevicePluginSettings.defaults()
            .withMigStrategy(MigStrategy.MIXED)
            .withDeviceList(List.of(DeviceListStrategy.CDI_CRI), DeviceIdStrategy.UUID, false);
    Path kubelet = Files.createDirectories(dir.resolve("device-plugins")).resolve("kubelet.sock");
    try (SimulatedBackend backend = TestNodes.backend(yaml, "n");
        DevicePluginAgent agent =
            new DevicePluginAgent(
                    backend,
                    settings,
                    kubelet,
                    null,
                    XidPolicy.defaults(),
                    Duration.ZERO,
                    Duration.ofSeconds(1))
                .withCdiSpecDir(dir.resolve("cdi"))
                .start()) {
      JsonNode spec =
          new ObjectMapper()
              .readTree(dir.resolve("cdi/k8s.device-plugin.nvidia.com-gpu.json").toFile());
      assertThat(CdiSchema.load().errors(spec)).isEmpty();
      assertThat(spec.get("cdiVersion").asText()).isEqualTo("0.5.0");
      assertThat(spec.get("kind").asText()).isEqualTo("k8s.device-plugin.nvidia.com/gpu");
      List<String> names = new ArrayList<>();
      spec.get("devices").forEach(d -> names.add(d.get("name").asText()));
      assertThat(names).hasSize(3);
      assertThat(
              spec.get("devices")
                  .get(0)
                  .get("containerEdits")
                  .get("deviceNodes")
                  .get(0)
                  .get("path")
                  .asText())
          .startsWith("/dev/nvidia");

      for (ResourceServer server : agent.servers().values()) {
        ResourceSet r = server.resource();
        var model = new AllocateResponseModel(r, settings, p -> false, () -> "id");
        var response = model.allocate(List.of(r.devices().get(0).id()));
        String cdiName = response.getCdiDevices(0).getName();
        assertThat(cdiName).startsWith("k8s.device-plugin.nvidia.com/gpu=");
        assertThat(names).contains(cdiName.substring(cdiName.indexOf('=') + 1));
      }
    }
  }
}
