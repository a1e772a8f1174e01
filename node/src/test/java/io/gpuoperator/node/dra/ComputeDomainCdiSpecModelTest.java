package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.node.gpu.CharacterDevices;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComputeDomainCdiSpecModelTest {

  @Test
  void aChannelGetsItsCharacterDeviceWithTheMajorOfTheKernelsList() {
    int major =
        CharacterDevices.parse(SimulatedBackend.PROC_DEVICES)
            .get(ComputeDomainNames.CHANNELS_DEVICE);
    assertThat(major).isEqualTo(234);
    Map<String, Map<String, Object>> edits = new LinkedHashMap<>();
    edits.put("channel-0", ComputeDomainCdiSpecModel.channelEdits(List.of(0), major));
    JsonNode spec =
        Serialization.jsonMapper().valueToTree(ComputeDomainCdiSpecModel.build("u1", edits));
    assertThat(spec.path("kind").asText()).isEqualTo("k8s.compute-domain.nvidia.com/claim");
    JsonNode device = spec.path("devices").get(0);
    assertThat(device.path("name").asText()).isEqualTo("u1-channel-0");
    JsonNode node = device.path("containerEdits").path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps-imex-channels/channel0");
    assertThat(node.path("type").asText()).isEqualTo("c");
    assertThat(node.path("major").asInt()).isEqualTo(234);
    assertThat(node.path("minor").asInt()).isZero();
    assertThat(node.path("fileMode").asInt()).isEqualTo(0666);
    assertThat(ComputeDomainCdiSpecModel.fileName("u1"))
        .isEqualTo("k8s.compute-domain.nvidia.com-claim_u1.json");
    assertThat(ComputeDomainCdiSpecModel.deviceId("u1", "channel-0"))
        .isEqualTo("k8s.compute-domain.nvidia.com/claim=u1-channel-0");
  }

  @Test
  void blockDevicesDoNotCount() {
    String devices =
        "Character devices:\n 10 misc\n\nBlock devices:\n234 nvidia-caps-imex-channels\n";
    assertThat(CharacterDevices.parse(devices)).containsOnlyKeys("misc");
  }

  @Test
  void theDaemonGetsTheDomainsIdentityAndDirectory() {
    Map<String, Object> edits =
        ComputeDomainCdiSpecModel.daemonEdits(
            "c.1", "uid-1", "imex", "team", Path.of("/var/lib/kubelet/plugins/x/domains/uid-1"));
    JsonNode e = Serialization.jsonMapper().valueToTree(edits);
    assertThat(e.path("env"))
        .extracting(JsonNode::asText)
        .containsExactly(
            "CLIQUE_ID=c.1",
            "COMPUTE_DOMAIN_UUID=uid-1",
            "COMPUTE_DOMAIN_NAME=imex",
            "COMPUTE_DOMAIN_NAMESPACE=team");
    assertThat(e.path("mounts").get(0).path("containerPath").asText()).isEqualTo("/imexd");
    assertThat(e.path("mounts").get(0).path("hostPath").asText())
        .isEqualTo("/var/lib/kubelet/plugins/x/domains/uid-1");
  }
}
