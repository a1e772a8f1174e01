package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComputeDomainStateTest {
  private static final String CLIQUE = "5c8a1d3e-0000-4000-8000-000000000001.1";

  @TempDir Path dir;

  /** The cluster as the state sees it: domains by UID and the node's labels. */
  static final class FakeCluster implements ComputeDomainCluster {
    final Map<String, ComputeDomain> domains = new HashMap<>();
    final Map<String, String> labels = new HashMap<>();
    final List<String> labelWrites = new ArrayList<>();

    @Override
    public ComputeDomain domain(String uid) {
      return domains.get(uid);
    }

    @Override
    public String label(String key) {
      return labels.get(key);
    }

    @Override
    public void setLabel(String key, String value) {
      labelWrites.add(key + "=" + value);
      if (value == null) {
        labels.remove(key);
      } else {
        labels.put(key, value);
      }
    }

    ComputeDomain add(String uid, String ns, String name, boolean readyOnNodeA) {
      ComputeDomain cd = new ComputeDomain();
      cd.setMetadata(new ObjectMetaBuilder().withUid(uid).withNamespace(ns).withName(name).build());
      ComputeDomainStatus s = new ComputeDomainStatus();
      ComputeDomainStatus.Node n = new ComputeDomainStatus.Node();
      n.name = "node-a";
      n.status =
          readyOnNodeA
              ? ComputeDomainStatus.Readiness.Ready
              : ComputeDomainStatus.Readiness.NotReady;
      s.nodes = List.of(n);
      cd.setStatus(s);
      domains.put(uid, cd);
      return cd;
    }
  }

  final FakeCluster cluster = new FakeCluster();

  static final ImexManagementDevice MANAGEMENT =
      new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap1", 235, 1, 256);

  ComputeDomainState state(String clique) throws IOException {
    return new ComputeDomainState(
        "node-a",
        clique,
        cluster,
        dir.resolve("cdi"),
        dir.resolve("plugin"),
        () -> 234,
        () -> MANAGEMENT);
  }

  static String channelConfig(String domain, String mode) {
    return "- source: FromClaim\n  requests: []\n  opaque:\n    driver: compute-domain.nvidia.com\n"
        + "    parameters: {apiVersion: resource.nvidia.com/v1beta1, kind:"
        + " ComputeDomainChannelConfig, domainID: "
        + domain
        + (mode == null ? "" : ", allocationMode: " + mode)
        + "}";
  }

  static ClaimAllocation claim(String uid, String config, String... results) {
    return ClaimAllocation.of(
        Claims.allocated(ComputeDomainNames.DRIVER, uid, config, results),
        ComputeDomainNames.DRIVER,
        "node-a");
  }

  JsonNode cdi(String uid) throws IOException {
    return Serialization.jsonMapper()
        .readTree(dir.resolve("cdi").resolve(ComputeDomainCdiSpecModel.fileName(uid)).toFile());
  }

  @Test
  void aChannelClaimLabelsTheNodeWaitsForItsDaemonThenGetsTheChannelNode() throws Exception {
    Files.createDirectories(dir.resolve("cdi"));
    Files.createDirectories(dir.resolve("plugin"));
    cluster.add("cd-1", "ns", "imex", false);
    ComputeDomainState s = state(CLIQUE);
    var claim = claim("c1", channelConfig("cd-1", null), "channel:channel-0");
    // The daemon is not Ready here yet: the label brings it, the kubelet tries again.
    assertThatThrownBy(() -> s.prepare(claim))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ComputeDomain ns/imex is not Ready on node node-a yet");
    assertThat(cluster.labels).containsEntry("resource.nvidia.com/computeDomain", "cd-1");
    // The clique before the domain label, so the daemon's status entry names it.
    assertThat(cluster.labelWrites.get(0)).startsWith("nvidia.com/gpu.clique");
    assertThat(cluster.labels).containsEntry("nvidia.com/gpu.clique", CLIQUE);
    assertThat(s.prepared("c1")).isNull();

    cluster.add("cd-1", "ns", "imex", true);
    var devices = s.prepare(claim);
    assertThat(devices).hasSize(1);
    assertThat(devices.get(0).device()).isEqualTo("channel-0");
    assertThat(devices.get(0).cdiDeviceIds())
        .containsExactly("k8s.compute-domain.nvidia.com/claim=c1-channel-0");
    JsonNode node = cdi("c1").path("devices").get(0).path("containerEdits").path("deviceNodes");
    assertThat(node).hasSize(1);
    assertThat(node.get(0).path("path").asText())
        .isEqualTo("/dev/nvidia-caps-imex-channels/channel0");
    assertThat(node.get(0).path("major").asInt()).isEqualTo(234);
    // Prepared once: answered from the checkpoint, nothing written again.
    int writes = cluster.labelWrites.size();
    assertThat(s.prepare(claim)).isEqualTo(devices);
    assertThat(cluster.labelWrites).hasSize(writes);
    // A restarted plugin remembers it.
    assertThat(state(CLIQUE).prepared("c1")).isEqualTo(devices);

    s.unprepare("c1");
    assertThat(cluster.labels).doesNotContainKey("resource.nvidia.com/computeDomain");
    assertThat(cluster.labels).containsEntry("nvidia.com/gpu.clique", CLIQUE); // a fact; it stays
    assertThat(dir.resolve("cdi").resolve(ComputeDomainCdiSpecModel.fileName("c1"))).doesNotExist();
    s.unprepare("c1"); // idempotent
  }

  @Test
  void theLabelStaysUntilTheDomainsLastChannelClaimGoes() throws Exception {
    cluster.add("cd-1", "ns", "imex", true);
    ComputeDomainState s = state(CLIQUE);
    s.prepare(claim("c1", channelConfig("cd-1", null), "channel:channel-0"));
    s.prepare(claim("c2", channelConfig("cd-1", null), "channel:channel-0"));
    s.unprepare("c1");
    assertThat(cluster.labels).containsEntry("resource.nvidia.com/computeDomain", "cd-1");
    s.unprepare("c2");
    assertThat(cluster.labels).doesNotContainKey("resource.nvidia.com/computeDomain");
  }

  @Test
  void allocationModeAllGetsEveryChannel() throws Exception {
    cluster.add("cd-1", "ns", "imex", true);
    state(CLIQUE).prepare(claim("c1", channelConfig("cd-1", "All"), "channel:channel-0"));
    JsonNode nodes = cdi("c1").path("devices").get(0).path("containerEdits").path("deviceNodes");
    assertThat(nodes).hasSize(2048);
    assertThat(nodes.get(2047).path("path").asText())
        .isEqualTo("/dev/nvidia-caps-imex-channels/channel2047");
    assertThat(nodes.get(2047).path("minor").asInt()).isEqualTo(2047);
  }

  @Test
  void theDaemonClaimGetsTheDomainsIdentity() throws Exception {
    cluster.add("cd-1", "ns", "imex", false);
    String config =
        "- source: FromClaim\n  requests: []\n  opaque:\n    driver: compute-domain.nvidia.com\n"
            + "    parameters: {apiVersion: resource.nvidia.com/v1beta1, kind:"
            + " ComputeDomainDaemonConfig, domainID: cd-1}";
    // Not waiting for readiness: it is the daemon that becomes Ready.
    state(CLIQUE).prepare(claim("d1", config, "daemon:daemon-0"));
    JsonNode edits = cdi("d1").path("devices").get(0).path("containerEdits");
    assertThat(edits.path("env").toString())
        .contains("CLIQUE_ID=" + CLIQUE, "COMPUTE_DOMAIN_UUID=cd-1", "COMPUTE_DOMAIN_NAME=imex");
    assertThat(dir.resolve("plugin/domains/cd-1")).isDirectory();
    // NVIDIA's daemon renders this template before it starts IMEX, and opens the capability.
    assertThat(dir.resolve("plugin/domains/cd-1/imexd.cfg.tmpl"))
        .hasBinaryContent(ComputeDomainCdiSpecModel.daemonConfigTemplate());
    JsonNode node = edits.path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps/nvidia-cap1");
    assertThat(node.path("major").asInt()).isEqualTo(235);
    assertThat(node.path("minor").asInt()).isEqualTo(1);
    assertThat(node.path("fileMode").asInt()).isEqualTo(256);
    assertThat(cluster.labels).isEmpty();
  }

  @Test
  void badClaimsAreErrorsNamingWhatIsWrongAndChangeNothing() throws Exception {
    cluster.add("cd-1", "ns", "imex", true);
    cluster.add("cd-2", "other", "imex", true);
    ComputeDomainState s = state(CLIQUE);
    assertThatThrownBy(
            () -> s.prepare(claim("c1", channelConfig("nope", null), "channel:channel-0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "ResourceClaim ns/claim-c1: spec.devices.config[0]: domainID: no ComputeDomain has"
                + " UID nope (deleted, or the claim was written by hand with a wrong UID?)");
    assertThatThrownBy(
            () -> s.prepare(claim("c2", channelConfig("cd-1", null), "channel:channel-2048")))
        .hasMessage(
            "ResourceClaim ns/claim-c2: device channel-2048 (request channel): channel 2048 is"
                + " beyond the last IMEX channel, 2047");
    assertThatThrownBy(
            () -> s.prepare(claim("c3", channelConfig("cd-2", null), "channel:channel-0")))
        .hasMessageContaining("ComputeDomain other/imex is in namespace other");
    assertThatThrownBy(() -> s.prepare(claim("c4", "", "channel:channel-0")))
        .hasMessageContaining("has no opaque configuration of driver compute-domain.nvidia.com");
    assertThatThrownBy(
            () -> s.prepare(claim("c5", channelConfig("cd-1", "Some"), "channel:channel-0")))
        .hasMessageContaining(
            "spec.devices.config[0]: opaque parameters: allocationMode: expected Single or All,"
                + " got \"Some\"");
    assertThatThrownBy(() -> s.prepare(claim("c6", channelConfig("cd-1", null), "daemon:daemon-0")))
        .hasMessageContaining("kind: expected ComputeDomainDaemonConfig for this device");
    assertThat(cluster.labelWrites).isEmpty();
    assertThat(s.checkpoint().claims()).isEmpty();
    // Another domain's label: this node serves that one.
    cluster.labels.put("resource.nvidia.com/computeDomain", "cd-9");
    assertThatThrownBy(
            () -> s.prepare(claim("c7", channelConfig("cd-1", null), "channel:channel-0")))
        .hasMessageContaining("node node-a already serves ComputeDomain cd-9");
    // A node without a clique has nothing to prepare.
    assertThatThrownBy(
            () -> state("").prepare(claim("c8", channelConfig("cd-1", null), "channel:channel-0")))
        .hasMessageContaining("node node-a is in no NVLink fabric clique");
  }
}
