package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus.Readiness;
import io.gpuoperator.operator.validation.Violation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ComputeDomainModel against NVIDIA's compute-domain controller's templates (names, labels, device
 * classes, opaque configs), and ComputeDomainStatusModel against its status rules.
 */
class ComputeDomainModelTest {
  static ComputeDomain cd(String yamlSpec) {
    ComputeDomain cd =
        Serialization.unmarshal(
            """
            apiVersion: resource.nvidia.com/v1beta1
            kind: ComputeDomain
            metadata: {name: imex, namespace: team, uid: 0b8d-uid}
            spec:
            """
                + yamlSpec,
            ComputeDomain.class);
    return cd;
  }

  static final String SPEC = "  numNodes: 2\n  channel: {resourceClaimTemplate: {name: imex-ch}}\n";

  @SuppressWarnings("unchecked")
  static Map<String, Object> devices(GenericKubernetesResource t) {
    return (Map<String, Object>)
        ((Map<String, Object>)
                ((Map<String, Object>) t.getAdditionalProperties().get("spec")).get("spec"))
            .get("devices");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theChannelTemplateIsNvidiasWorkloadTemplate() {
    GenericKubernetesResource t =
        ComputeDomainModel.workloadClaimTemplate(
            cd("  channel: {resourceClaimTemplate: {name: imex-ch}, allocationMode: All}\n"),
            ResourceApiVersion.V1);
    assertThat(t.getApiVersion()).isEqualTo("resource.k8s.io/v1");
    assertThat(t.getMetadata().getNamespace()).isEqualTo("team");
    assertThat(t.getMetadata().getName()).isEqualTo("imex-ch");
    assertThat(t.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "resource.nvidia.com/computeDomain", "0b8d-uid",
                "resource.nvidia.com/computeDomainTarget", "Workload"));
    Map<String, Object> d = devices(t);
    assertThat(d.get("requests"))
        .isEqualTo(
            List.of(
                Map.of(
                    "name",
                    "channel",
                    "exactly",
                    Map.of("deviceClassName", "compute-domain-default-channel.nvidia.com"))));
    Map<String, Object> config = ((List<Map<String, Object>>) d.get("config")).get(0);
    assertThat(config.get("requests")).isEqualTo(List.of("channel"));
    assertThat(config.get("opaque"))
        .isEqualTo(
            Map.of(
                "driver",
                "compute-domain.nvidia.com",
                "parameters",
                Map.of(
                    "apiVersion", "resource.nvidia.com/v1beta1",
                    "kind", "ComputeDomainChannelConfig",
                    "domainID", "0b8d-uid",
                    "allocationMode", "All")));
  }

  @Test
  void theDaemonTemplateIsFlatInV1beta1() {
    GenericKubernetesResource t =
        ComputeDomainModel.daemonClaimTemplate(
            cd(SPEC), "gpu-operator", ResourceApiVersion.V1BETA1);
    assertThat(t.getApiVersion()).isEqualTo("resource.k8s.io/v1beta1");
    assertThat(t.getMetadata().getName()).isEqualTo("computedomain-daemon-0b8d-uid");
    assertThat(t.getMetadata().getNamespace()).isEqualTo("gpu-operator");
    assertThat(t.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(devices(t).get("requests"))
        .isEqualTo(
            List.of(
                Map.of("name", "daemon", "deviceClassName", "compute-domain-daemon.nvidia.com")));
  }

  @Test
  void theDaemonRunsNvidiasProgramFromNvidiasImageWhereTheDriverImageIsOurs() {
    String ours = OperandImages.projectImage().replace("ghcr.io", "mirror.example.com");
    Container onOurs =
        ComputeDomainModel.daemonSet(cd(SPEC), "gpu-operator", ours, "IfNotPresent", null)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    // Our image has no compute-domain-daemon: NVIDIA's, from the mirror ours comes from.
    assertThat(onOurs.getImage())
        .isEqualTo("mirror.example.com/nvidia/dra-driver-nvidia-gpu:v0.5.0")
        .isEqualTo(OperandImages.onMirrorOf(ComputeDomainModel.NVIDIA_DRA_DRIVER_IMAGE, ours));
    assertThat(onOurs.getCommand())
        .containsExactly("compute-domain-daemon", "-v", "$(LOG_VERBOSITY)", "run");
    assertThat(onOurs.getArgs()).isEmpty();
    assertThat(onOurs.getReadinessProbe().getExec().getCommand())
        .containsExactly("compute-domain-daemon", "-v", "$(LOG_VERBOSITY)", "check");
    assertThat(onOurs.getEnv().get(0).getName()).isEqualTo("LOG_VERBOSITY");
    // NVIDIA's contract with its daemon: its variables (the pod's identity from the downward API,
    // the domain's size limit) and its three probes, all running its check.
    Map<String, String> env = new LinkedHashMap<>();
    onOurs
        .getEnv()
        .forEach(
            e ->
                env.put(
                    e.getName(),
                    e.getValue() != null
                        ? e.getValue()
                        : "field:" + e.getValueFrom().getFieldRef().getFieldPath()));
    assertThat(env)
        .containsEntry("MAX_NODES_PER_IMEX_DOMAIN", "18")
        .containsEntry("NODE_NAME", "field:spec.nodeName")
        .containsEntry("POD_IP", "field:status.podIP")
        .containsEntry("POD_UID", "field:metadata.uid")
        .containsEntry("POD_NAME", "field:metadata.name")
        .containsEntry("POD_NAMESPACE", "field:metadata.namespace")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "void")
        // Cliques off: the daemon writes its entry into the domain's status.nodes, not into a
        // ComputeDomainClique (a kind this project does not define).
        .containsEntry("FEATURE_GATES", "ComputeDomainCliques=false");
    // NVIDIA's ServiceAccount, which the DRA driver's manifests hold with the daemon's roles.
    assertThat(
            ComputeDomainModel.daemonSet(cd(SPEC), "gpu-operator", ours, "IfNotPresent", null)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getServiceAccountName())
        .isEqualTo("compute-domain-daemon-service-account");
    for (var probe :
        List.of(onOurs.getStartupProbe(), onOurs.getLivenessProbe(), onOurs.getReadinessProbe())) {
      assertThat(probe.getExec().getCommand())
          .containsExactly("compute-domain-daemon", "-v", "$(LOG_VERBOSITY)", "check");
      assertThat(probe.getTimeoutSeconds()).isEqualTo(10);
    }
    assertThat(onOurs.getStartupProbe().getPeriodSeconds()).isEqualTo(1);
    assertThat(onOurs.getStartupProbe().getFailureThreshold()).isEqualTo(1200);
    assertThat(onOurs.getLivenessProbe().getPeriodSeconds()).isEqualTo(60);
    assertThat(onOurs.getLivenessProbe().getFailureThreshold()).isEqualTo(20);
    assertThat(onOurs.getReadinessProbe().getPeriodSeconds()).isEqualTo(10);
    assertThat(onOurs.getReadinessProbe().getFailureThreshold()).isEqualTo(1);

    String nvidias = "registry.example.com/nvidia/dra-driver-nvidia-gpu:v0.6.0";
    assertThat(ComputeDomainModel.daemonImage(nvidias)).isEqualTo(nvidias);
  }

  @Test
  void theDeviceClassesSelectNvidiasDevices() {
    List<HasMetadata> classes = ComputeDomainModel.deviceClasses(ResourceApiVersion.V1);
    String json = Serialization.asJson(classes);
    assertThat(classes)
        .extracting(c -> c.getMetadata().getName())
        .containsExactly(
            "compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com");
    assertThat(json)
        .contains(
            "device.driver == 'compute-domain.nvidia.com' &&"
                + " device.attributes['compute-domain.nvidia.com'].type == 'daemon'")
        .contains(
            "device.driver == 'compute-domain.nvidia.com' &&"
                + " device.attributes['compute-domain.nvidia.com'].type == 'channel' &&"
                + " device.attributes['compute-domain.nvidia.com'].id == 0");
  }

  @Test
  void aTemplateNameTheServerWouldRefuseIsNamed() {
    assertThat(
            ComputeDomainModel.validate(
                cd("  channel: {resourceClaimTemplate: {name: Bad_Name}}\n")))
        .extracting(Violation::toString)
        .containsExactly(
            "spec.channel.resourceClaimTemplate.name: \"Bad_Name\" is not a valid"
                + " ResourceClaimTemplate name (lower case letters, digits, '-' and '.', starting"
                + " and ending with a letter or digit)");
    assertThat(ComputeDomainModel.validate(cd(SPEC))).isEmpty();
  }

  static Pod pod(String node, String ip, boolean ready) {
    return new PodBuilder()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .withPodIP(ip)
        .withConditions(
            new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .build())
        .endStatus()
        .build();
  }

  @Test
  void readyOnceNumNodesJoinedAndEveryOneIsReady() {
    ComputeDomain cd = cd(SPEC);
    Map<String, String> cliques = Map.of("a", "c.1", "b", "c.1");
    ComputeDomainStatus one =
        ComputeDomainStatusModel.of(cd, List.of(pod("a", "10.0.0.1", true)), cliques);
    assertThat(one.status).isEqualTo(Readiness.NotReady);
    ComputeDomainStatus two =
        ComputeDomainStatusModel.of(
            cd,
            List.of(pod("b", "10.0.0.2", true), pod("a", "10.0.0.1", true), pod(null, null, false)),
            cliques);
    assertThat(two.status).isEqualTo(Readiness.Ready);
    assertThat(two.nodes).extracting(n -> n.name).containsExactly("a", "b");
    assertThat(two.nodes).extracting(n -> n.index).containsExactly(0, 1);
    ComputeDomainStatus notReady =
        ComputeDomainStatusModel.of(
            cd, List.of(pod("b", "10.0.0.2", false), pod("a", "10.0.0.1", true)), cliques);
    assertThat(notReady.status).isEqualTo(Readiness.NotReady);
    assertThat(ComputeDomainStatusModel.same(two, notReady)).isFalse();
    assertThat(
            ComputeDomainStatusModel.same(
                two,
                ComputeDomainStatusModel.of(
                    cd, List.of(pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true)), cliques)))
        .isTrue();
  }

  @Test
  void aNodeKeepsItsIndexWhileItStaysAndANewOneTakesTheLowestFree() {
    ComputeDomain cd = cd(SPEC);
    Map<String, String> cliques = Map.of("a", "c.1", "b", "c.1", "c", "c.1");
    cd.setStatus(
        ComputeDomainStatusModel.of(
            cd, List.of(pod("b", "10.0.0.2", true), pod("c", "10.0.0.3", true)), cliques));
    assertThat(cd.getStatus().nodes).extracting(n -> n.index).containsExactly(0, 1);
    ComputeDomainStatus after =
        ComputeDomainStatusModel.of(
            cd, List.of(pod("a", "10.0.0.1", true), pod("c", "10.0.0.3", true)), cliques);
    // a is new: b's index 0 is free again; c keeps 1.
    assertThat(after.nodes).extracting(n -> n.name + "=" + n.index).containsExactly("a=0", "c=1");
  }

  static ComputeDomainStatus.Node entry(String name, String ip, String clique, int index) {
    ComputeDomainStatus.Node n = new ComputeDomainStatus.Node();
    n.name = name;
    n.ipAddress = ip;
    n.cliqueID = clique;
    n.index = index;
    n.status = Readiness.NotReady;
    return n;
  }

  @Test
  void aDaemonsOwnEntryKeepsItsCliqueAndIndexAndAStaleOneIsDropped() {
    ComputeDomain cd = cd(SPEC);
    cd.setStatus(new ComputeDomainStatus());
    // As NVIDIA's daemons write them: a's (its pod's IP; a clique of its own GPUs' fabric and an
    // index that is not the lowest free), and b's from a pod since replaced (another IP: the new
    // pod's IP is written, the node keeps its index).
    cd.getStatus().nodes =
        List.of(entry("a", "10.0.0.1", "c.7", 4), entry("b", "10.0.0.9", "c.1", 0));
    Map<String, String> cliques = Map.of("a", "c.1", "b", "c.1", "c", "c.1");
    ComputeDomainStatus after =
        ComputeDomainStatusModel.of(
            cd, List.of(pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true)), cliques);
    assertThat(after.nodes)
        .extracting(
            n -> n.name + " " + n.ipAddress + " " + n.cliqueID + " " + n.index + " " + n.status)
        .containsExactly("a 10.0.0.1 c.7 4 Ready", "b 10.0.0.2 c.1 0 Ready");
    // a's pod is gone, c's is new: a's entry goes, c takes the lowest free index of its clique.
    cd.setStatus(after);
    ComputeDomainStatus later =
        ComputeDomainStatusModel.of(
            cd, List.of(pod("b", "10.0.0.2", true), pod("c", "10.0.0.3", false)), cliques);
    assertThat(later.nodes)
        .extracting(n -> n.name + " " + n.cliqueID + " " + n.index + " " + n.status)
        .containsExactly("b c.1 0 Ready", "c c.1 1 NotReady");
  }
}
