package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.node.gpu.CharacterDevices;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
            "c.1",
            "uid-1",
            "imex",
            "team",
            Path.of("/var/lib/kubelet/plugins/x/domains/uid-1"),
            new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap1", 235, 1, 256));
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

  @Test
  void theDaemonGetsTheImexManagementCapabilityOnlyWhereThereIsOne() {
    JsonNode with =
        Serialization.jsonMapper()
            .valueToTree(
                ComputeDomainCdiSpecModel.daemonEdits(
                    "c.1",
                    "uid-1",
                    "imex",
                    "team",
                    Path.of("/d"),
                    new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap7", 235, 7, 256)));
    assertThat(with.path("deviceNodes")).hasSize(1);
    JsonNode node = with.path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps/nvidia-cap7");
    assertThat(node.path("type").asText()).isEqualTo("c");
    assertThat(node.path("major").asInt()).isEqualTo(235);
    assertThat(node.path("minor").asInt()).isEqualTo(7);
    assertThat(node.path("fileMode").asInt()).isEqualTo(256);
    JsonNode without =
        Serialization.jsonMapper()
            .valueToTree(
                ComputeDomainCdiSpecModel.daemonEdits(
                    "", "uid-1", "imex", "team", Path.of("/d"), null));
    assertThat(without.has("deviceNodes")).isFalse();
  }

  /**
   * NVIDIA's daemon executes the template with a struct of exactly two fields (its pod IP and its
   * nodes file); any other placeholder would fail its start. The settings it relies on are there.
   */
  @Test
  void theImexConfigTemplateUsesOnlyTheDaemonsTwoValues() {
    String template =
        new String(ComputeDomainCdiSpecModel.daemonConfigTemplate(), StandardCharsets.UTF_8);
    Set<String> placeholders = new TreeSet<>();
    Matcher m = Pattern.compile("\\{\\{\\s*\\.(\\w+)\\s*}}").matcher(template);
    while (m.find()) {
      placeholders.add(m.group(1));
    }
    assertThat(placeholders).containsExactly("IMEXCmdBindInterfaceIP", "IMEXDaemonNodesConfigPath");
    assertThat(template.replaceAll("\\{\\{[^}]*}}", "")).doesNotContain("{{", "}}");
    assertThat(template.lines().filter(l -> !l.startsWith("#") && !l.isBlank()))
        .contains(
            "DAEMONIZE=0",
            "IMEX_NODE_CONFIG_FILE={{ .IMEXDaemonNodesConfigPath }}",
            "IMEX_CMD_ENABLED=1",
            "IMEX_CMD_BIND_INTERFACE_IP={{ .IMEXCmdBindInterfaceIP }}")
        .allMatch(l -> l.matches("[A-Z_]+=.*"));
  }
}
