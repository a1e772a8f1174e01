package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus.Readiness;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ComputeDomains against a real control plane (API server with the CRD's schema and CEL rule,
 * controller manager for the DaemonSet controller and garbage collection) and the real operator:
 * nothing is done until the GPUCluster enables ComputeDomains; then NVIDIA's objects for a domain
 * (channel claim template owned by it, daemon claim template and DaemonSet); the status from the
 * daemon pods as the DRA plugin's node labels bring them (bound and made ready here, where no
 * kubelet runs); specs the server accepts but that cannot be served become a Warning Event naming
 * the field; deletion removes everything, the node labels included.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComputeDomainIT {
  static final String CLIQUE = "5c8a1d3e-0000-4000-8000-000000000001.1";

  @RegisterExtension
  static final OwnControlPlane CLUSTER = new OwnControlPlane("cd-1", ComputeDomainIT::nodes);

  static KubernetesClient admin;
  static String ns;
  static String team;

  /** A GB200 node in the clique and an H100 node outside it, before the operator starts. */
  static void nodes(KubernetesClient admin) {
    team = ControlPlaneExtension.newNamespace(admin, "team");
    admin
        .nodes()
        .resource(ItCluster.node("gb200-0", Map.of(ComputeDomainModel.CLIQUE_LABEL, CLIQUE)))
        .create();
    admin.nodes().resource(ItCluster.node("h100-0", Map.of())).create();
  }

  @BeforeAll
  static void start() {
    admin = CLUSTER.admin();
    ns = CLUSTER.ns();
  }

  static ComputeDomain domain(String name, int numNodes, String template) {
    return Serialization.unmarshal(
        """
        apiVersion: resource.nvidia.com/v1beta1
        kind: ComputeDomain
        metadata:
          name: %s
          namespace: %s
        spec:
          numNodes: %d
          channel:
            resourceClaimTemplate:
              name: %s
        """
            .formatted(name, team, numNodes, template),
        ComputeDomain.class);
  }

  static ComputeDomain live(String name) {
    return admin.resources(ComputeDomain.class).inNamespace(team).withName(name).get();
  }

  static GenericKubernetesResource template(String namespace, String name) {
    return admin
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaimTemplate")
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  @Test
  @Order(1)
  void nothingIsCreatedUntilTheGpuClusterEnablesComputeDomains() throws Exception {
    admin.resource(domain("imex", 2, "imex-channel")).create();
    admin
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: nvidia.com/v1alpha1
                kind: GPUCluster
                metadata: {name: gpu-cluster}
                spec:
                  draDriver: {computeDomains: {enabled: false}}
                """,
                GPUCluster.class))
        .create();
    Thread.sleep(3000);
    assertThat(template(team, "imex-channel")).isNull();
    assertThat(live("imex").getStatus()).isNull();

    admin
        .resources(GPUCluster.class)
        .withName(GPUCluster.NAME)
        .edit(
            gc -> {
              gc.getSpec().draDriver.computeDomains.enabled = true;
              return gc;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(template(team, "imex-channel")).isNotNull());
  }

  @Test
  @Order(2)
  @SuppressWarnings("unchecked")
  void aDomainGetsNvidiasChannelTemplateAndDaemonSet() {
    ComputeDomain cd = live("imex");
    String uid = cd.getMetadata().getUid();
    assertThat(cd.getMetadata().getFinalizers()).contains("resource.nvidia.com/computeDomain");

    GenericKubernetesResource channel = template(team, "imex-channel");
    assertThat(channel.getMetadata().getLabels())
        .containsEntry("resource.nvidia.com/computeDomain", uid)
        .containsEntry("resource.nvidia.com/computeDomainTarget", "Workload");
    assertThat(channel.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("ComputeDomain");
              assertThat(o.getUid()).isEqualTo(uid);
              assertThat(o.getController()).isTrue();
            });
    Map<String, Object> devices =
        (Map<String, Object>)
            ((Map<String, Object>)
                    ((Map<String, Object>) channel.getAdditionalProperties().get("spec"))
                        .get("spec"))
                .get("devices");
    Map<String, Object> request = ((List<Map<String, Object>>) devices.get("requests")).get(0);
    assertThat(request.get("name")).isEqualTo("channel");
    assertThat((Map<String, Object>) request.get("exactly"))
        .containsEntry("deviceClassName", "compute-domain-default-channel.nvidia.com");
    Map<String, Object> opaque =
        (Map<String, Object>)
            ((List<Map<String, Object>>) devices.get("config")).get(0).get("opaque");
    assertThat(opaque).containsEntry("driver", "compute-domain.nvidia.com");
    assertThat((Map<String, Object>) opaque.get("parameters"))
        .containsEntry("apiVersion", "resource.nvidia.com/v1beta1")
        .containsEntry("kind", "ComputeDomainChannelConfig")
        .containsEntry("domainID", uid)
        .containsEntry("allocationMode", "Single");

    String daemon = "computedomain-daemon-" + uid;
    GenericKubernetesResource daemonTemplate = template(ns, daemon);
    assertThat(daemonTemplate).isNotNull();
    assertThat(daemonTemplate.getMetadata().getLabels())
        .containsEntry("resource.nvidia.com/computeDomainTarget", "Daemon");
    DaemonSet ds = admin.apps().daemonSets().inNamespace(ns).withName(daemon).get();
    assertThat(ds).isNotNull();
    var pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsEntry("resource.nvidia.com/computeDomain", uid);
    assertThat(pod.getResourceClaims())
        .singleElement()
        .satisfies(c -> assertThat(c.getResourceClaimTemplateName()).isEqualTo(daemon));
    assertThat(pod.getContainers().get(0).getResources().getClaims())
        .extracting(c -> c.getName())
        .containsExactly("compute-domain-daemon");
    // NVIDIA's program in NVIDIA's image: this project's image (the GPUCluster's default here) has
    // no IMEX daemon.
    assertThat(pod.getContainers().get(0).getImage())
        .isEqualTo(ComputeDomainModel.NVIDIA_DRA_DRIVER_IMAGE);
    assertThat(pod.getContainers().get(0).getCommand())
        .containsExactly("compute-domain-daemon", "-v", "$(LOG_VERBOSITY)", "run");
    assertThat(pod.getServiceAccountName()).isEqualTo(ComputeDomainModel.SERVICE_ACCOUNT);
    assertThat(pod.getContainers().get(0).getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("FEATURE_GATES");
              assertThat(e.getValue()).isEqualTo("ComputeDomainCliques=false");
            });

    // numNodes 2, no node joined yet.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(live("imex").getStatus().status).isEqualTo(Readiness.NotReady));
  }

  @Test
  @Order(3)
  void theStatusFollowsTheDaemonPodsOfTheNodesTheDomainRunsOn() {
    String uid = live("imex").getMetadata().getUid();
    // What the DRA plugin does when it prepares a channel of the domain on a node.
    for (String node : List.of("gb200-0", "h100-0")) {
      label(node, ComputeDomainModel.DOMAIN_LABEL, "\"" + uid + "\"");
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(daemonPods(uid)).hasSize(2));
    // No scheduler nor kubelet here: bind each pod to its node and report it running.
    int ip = 10;
    for (Pod p : daemonPods(uid)) {
      String node = targetNode(p);
      admin
          .bindings()
          .inNamespace(ns)
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName(p.getMetadata().getName())
                  .endMetadata()
                  .withNewTarget()
                  .withKind("Node")
                  .withName(node)
                  .endTarget()
                  .build())
          .create();
      running(p.getMetadata().getName(), "10.0.0." + ip++, node.equals("gb200-0"));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ComputeDomainStatus s = live("imex").getStatus();
              assertThat(s.nodes).hasSize(2);
              assertThat(s.nodes.get(0).name).isEqualTo("gb200-0");
              assertThat(s.nodes.get(0).cliqueID).isEqualTo(CLIQUE);
              assertThat(s.nodes.get(0).index).isZero();
              assertThat(s.nodes.get(0).status).isEqualTo(Readiness.Ready);
              assertThat(s.nodes.get(1).name).isEqualTo("h100-0");
              assertThat(s.nodes.get(1).cliqueID).isEmpty();
              assertThat(s.nodes.get(1).status).isEqualTo(Readiness.NotReady);
              assertThat(s.status).isEqualTo(Readiness.NotReady);
            });
    Pod h100 =
        daemonPods(uid).stream()
            .filter(p -> "h100-0".equals(p.getSpec().getNodeName()))
            .findFirst()
            .orElseThrow();
    running(h100.getMetadata().getName(), h100.getStatus().getPodIP(), true);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(live("imex").getStatus().status).isEqualTo(Readiness.Ready));

    // NVIDIA's daemon on gb200-0 writes its own entry (UpdateStatus over the copy it read): its
    // index 5, not the one the controller chose; and an entry of a node whose pod is gone.
    ComputeDomain cd = live("imex");
    ComputeDomainStatus.Node own = cd.getStatus().nodes.get(0);
    own.index = 5;
    ComputeDomainStatus.Node gone = new ComputeDomainStatus.Node();
    gone.name = "gb200-9";
    gone.ipAddress = "10.0.0.99";
    gone.cliqueID = CLIQUE;
    gone.index = 1;
    gone.status = Readiness.Ready;
    cd.getStatus().nodes = new ArrayList<>(List.of(own, cd.getStatus().nodes.get(1), gone));
    admin.resources(ComputeDomain.class).inNamespace(team).resource(cd).updateStatus();
    // The controller's next pass (h100-0's pod turns not ready) keeps the daemon's entry as
    // written and drops the one without a pod.
    running(h100.getMetadata().getName(), h100.getStatus().getPodIP(), false);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ComputeDomainStatus s = live("imex").getStatus();
              assertThat(s.status).isEqualTo(Readiness.NotReady);
              assertThat(s.nodes)
                  .extracting(n -> n.name + " " + n.cliqueID + " " + n.index + " " + n.status)
                  .containsExactly("gb200-0 " + CLIQUE + " 5 Ready", "h100-0  0 NotReady");
            });
    running(h100.getMetadata().getName(), h100.getStatus().getPodIP(), true);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ComputeDomainStatus s = live("imex").getStatus();
              assertThat(s.status).isEqualTo(Readiness.Ready);
              assertThat(s.nodes.get(0).index).isEqualTo(5);
            });
  }

  @Test
  @Order(4)
  void theSpecIsImmutableAndASpecThatCannotBeServedIsAnEventNamingTheField() {
    assertThatThrownBy(
            () ->
                admin
                    .resources(ComputeDomain.class)
                    .inNamespace(team)
                    .withName("imex")
                    .edit(
                        cd -> {
                          cd.getSpec().numNodes = 3;
                          return cd;
                        }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("A computeDomain.spec is immutable");

    admin.resource(domain("bad-name", 0, "Bad_Name")).create();
    admin.resource(domain("taken", 0, "imex-channel")).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(warning("bad-name"))
                  .contains(
                      "ComputeDomain "
                          + team
                          + "/bad-name: spec.channel.resourceClaimTemplate.name: \"Bad_Name\" is"
                          + " not a valid ResourceClaimTemplate name");
              assertThat(warning("taken"))
                  .contains(
                      "spec.channel.resourceClaimTemplate.name: ResourceClaimTemplate "
                          + team
                          + "/imex-channel already exists and is not this ComputeDomain's");
              assertThat(live("bad-name").getStatus().status).isEqualTo(Readiness.NotReady);
              assertThat(live("taken").getStatus().status).isEqualTo(Readiness.NotReady);
            });
    // The taken template is still the first domain's.
    assertThat(template(team, "imex-channel").getMetadata().getLabels())
        .containsEntry("resource.nvidia.com/computeDomain", live("imex").getMetadata().getUid());
    admin.resources(ComputeDomain.class).inNamespace(team).withName("bad-name").delete();
    admin.resources(ComputeDomain.class).inNamespace(team).withName("taken").delete();
  }

  @Test
  @Order(5)
  void deletingTheDomainRemovesItsObjectsAndNodeLabels() {
    String uid = live("imex").getMetadata().getUid();
    String daemon = "computedomain-daemon-" + uid;
    admin.resources(ComputeDomain.class).inNamespace(team).withName("imex").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(live("imex")).isNull();
              assertThat(template(team, "imex-channel")).isNull();
              assertThat(template(ns, daemon)).isNull();
              assertThat(admin.apps().daemonSets().inNamespace(ns).withName(daemon).get()).isNull();
              for (Node n : admin.nodes().list().getItems()) {
                assertThat(n.getMetadata().getLabels())
                    .doesNotContainKey(ComputeDomainModel.DOMAIN_LABEL);
              }
            });
  }

  static List<Pod> daemonPods(String uid) {
    return admin
        .pods()
        .inNamespace(ns)
        .withLabel(ComputeDomainModel.DOMAIN_LABEL, uid)
        .list()
        .getItems();
  }

  /** The node a DaemonSet pod is made for (the DaemonSet controller's node affinity). */
  static String targetNode(Pod p) {
    return p.getSpec()
        .getAffinity()
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms()
        .get(0)
        .getMatchFields()
        .get(0)
        .getValues()
        .get(0);
  }

  static void label(String node, String key, String jsonValue) {
    admin
        .nodes()
        .resource(PatchTarget.of(Node::new, null, node))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + key + "\":" + jsonValue + "}}}");
  }

  static void running(String pod, String ip, boolean ready) {
    admin
        .pods()
        .inNamespace(ns)
        .withName(pod)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            """
            {"status": {"phase": "Running", "podIP": "%s", "podIPs": [{"ip": "%s"}],
              "conditions": [{"type": "Ready", "status": "%s"}]}}
            """
                .formatted(ip, ip, ready ? "True" : "False"));
  }

  static String warning(String domain) {
    return admin.v1().events().inNamespace(team).list().getItems().stream()
        .filter(e -> domain.equals(e.getInvolvedObject().getName()))
        .filter(e -> "Warning".equals(e.getType()))
        .filter(e -> ComputeDomainReconciler.INVALID_SPEC.equals(e.getReason()))
        .map(Event::getMessage)
        .findFirst()
        .orElse("");
  }
}
