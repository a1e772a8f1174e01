package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The DRA plugin's RBAC as the operator renders it (operand {@code dra-driver}), on a real API
 * server: with the token its pod gets, the plugin writes its own node's ResourceSlices and reads
 * claims, and the API server refuses it another node's slices (the ValidatingAdmissionPolicy),
 * slices without a node, and any token not bound to a pod on a node. Also the IMEX daemon's
 * ServiceAccount and roles, which the same operand holds.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraDriverRbacIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String SA = "nvidia-dra-driver-gpu";
  private static final String API = "resource.k8s.io/v1";

  @Test
  void thePluginWritesOnlyItsOwnNodesSlices(KubernetesClient admin) {
    String ns = ControlPlaneExtension.newNamespace(admin, "dra-rbac");
    List<HasMetadata> objects = DraDriverRendering.rbac(ns);
    for (HasMetadata o : objects) {
      admin.resource(o).serverSideApply();
    }
    for (String node : List.of("rbac-a", "rbac-b")) {
      admin
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .serverSideApply();
    }
    Pod plugin =
        admin
            .pods()
            .inNamespace(ns)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("plugin")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("rbac-a")
                    .withServiceAccountName(SA)
                    .addNewContainer()
                    .withName("gpus")
                    .withImage("gpu-operator")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    String podToken = token(admin, ns, plugin);
    String unboundToken = token(admin, ns, null);
    // Another driver's slice of node b, which the plugin must not touch.
    admin.resource(slice("rbac-b", "someone-else")).create();
    try (KubernetesClient asPlugin = clientWithToken(admin, podToken);
        KubernetesClient unbound = clientWithToken(admin, unboundToken)) {
      var slices = asPlugin.genericKubernetesResources(API, "ResourceSlice");
      // The policy takes effect once the API server has loaded it.
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                Throwable t = catchWrite(() -> slices.resource(slice("rbac-b", "b")).create());
                if (t == null) {
                  admin.genericKubernetesResources(API, "ResourceSlice").withName("b").delete();
                }
                assertThat(t)
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining(
                        "the gpu.nvidia.com DRA plugin on node rbac-a may not write the"
                            + " ResourceSlices of node rbac-b");
              });
      slices.resource(slice("rbac-a", "a")).create();
      assertThat(slices.withField("spec.nodeName", "rbac-a").list().getItems()).hasSize(1);
      assertThatThrownBy(() -> slices.withName("someone-else").delete())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("may not write the ResourceSlices of node rbac-b");
      assertThatThrownBy(() -> slices.resource(slice(null, "no-node")).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("may not write ResourceSlices without a node");
      assertThatThrownBy(
              () ->
                  unbound
                      .genericKubernetesResources(API, "ResourceSlice")
                      .resource(slice("rbac-a", "unbound"))
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("only from a pod bound to a node");
      // Claims: get (prepare reads one), nothing else.
      assertThat(
              asPlugin
                  .genericKubernetesResources(API, "ResourceClaim")
                  .inNamespace(ns)
                  .withName("absent")
                  .get())
          .isNull();
      assertThatThrownBy(
              () ->
                  asPlugin.genericKubernetesResources(API, "ResourceClaim").inNamespace(ns).list())
          .isInstanceOf(KubernetesClientException.class)
          .extracting(e -> ((KubernetesClientException) e).getCode())
          .isEqualTo(403);
      slices.withName("a").delete();
    } finally {
      admin.genericKubernetesResources(API, "ResourceSlice").withName("someone-else").delete();
      admin.namespaces().withName(ns).delete();
    }
  }

  /**
   * NVIDIA's IMEX daemon, run with ComputeDomain cliques off: its ServiceAccount may watch
   * ComputeDomains in any namespace and write their status, and watch and label pods of its own
   * namespace; nothing more (not the domain's spec, not cliques, not pods elsewhere), as the API
   * server's authorizer answers for that ServiceAccount.
   */
  @Test
  void theImexDaemonMayWriteDomainStatusAndLabelItsOwnPodOnly(KubernetesClient admin) {
    String ns = ControlPlaneExtension.newNamespace(admin, "cd-rbac");
    try {
      for (HasMetadata o : DraDriverRendering.rbac(ns)) {
        admin.resource(o).serverSideApply();
      }
      assertThat(
              admin
                  .serviceAccounts()
                  .inNamespace(ns)
                  .withName(ComputeDomainModel.SERVICE_ACCOUNT)
                  .get())
          .isNotNull();
      String user = "system:serviceaccount:" + ns + ":" + ComputeDomainModel.SERVICE_ACCOUNT;
      String cd = "resource.nvidia.com";
      List<String> allowed =
          List.of(
              cd + " computedomains list team",
              cd + " computedomains watch team",
              cd + " computedomains/status update team",
              " pods list " + ns,
              " pods watch " + ns,
              " pods patch " + ns);
      List<String> denied =
          List.of(
              cd + " computedomains update team",
              cd + " computedomains delete team",
              cd + " computedomaincliques create " + ns,
              " pods patch team",
              " pods delete " + ns,
              " secrets get " + ns);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                for (String a : allowed) {
                  assertThat(allows(admin, user, a)).as(a).isTrue();
                }
              });
      for (String d : denied) {
        assertThat(allows(admin, user, d)).as(d).isFalse();
      }
    } finally {
      admin.namespaces().withName(ns).delete();
    }
  }

  /** The authorizer's answer for {@code "<group> <resource[/sub]> <verb> <namespace>"}. */
  private static boolean allows(KubernetesClient admin, String user, String request) {
    String[] f = request.split(" ", -1);
    String[] resource = f[1].split("/");
    var review =
        new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups("system:serviceaccounts", "system:authenticated")
            .withNewResourceAttributes()
            .withGroup(f[0])
            .withResource(resource[0])
            .withSubresource(resource.length > 1 ? resource[1] : null)
            .withVerb(f[2])
            .withNamespace(f[3])
            .endResourceAttributes()
            .endSpec()
            .build();
    return admin.authorization().v1().subjectAccessReview().create(review).getStatus().getAllowed();
  }

  private static Throwable catchWrite(Runnable write) {
    try {
      write.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** A token of the plugin's ServiceAccount, bound to the pod when one is given. */
  private static String token(KubernetesClient admin, String ns, Pod pod) {
    TokenRequestBuilder request =
        new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec();
    if (pod != null) {
      request
          .editSpec()
          .withNewBoundObjectRef()
          .withApiVersion("v1")
          .withKind("Pod")
          .withName(pod.getMetadata().getName())
          .withUid(pod.getMetadata().getUid())
          .endBoundObjectRef()
          .endSpec();
    }
    TokenRequest answer =
        admin.serviceAccounts().inNamespace(ns).withName(SA).tokenRequest(request.build());
    return answer.getStatus().getToken();
  }

  private static KubernetesClient clientWithToken(KubernetesClient admin, String token) {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(admin.getConfiguration()).withOauthToken(token).build())
        .build();
  }

  private static GenericKubernetesResource slice(String node, String name) {
    String where = node == null ? "allNodes: true" : "nodeName: " + node;
    return Serialization.unmarshal(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: NAME}
        spec:
          driver: gpu.nvidia.com
          WHERE
          pool: {name: POOL, generation: 0, resourceSliceCount: 1}
          devices: [{name: gpu-0}]
        """
            .replace("NAME", name)
            .replace("WHERE", where)
            .replace("POOL", node == null ? "cluster" : node),
        GenericKubernetesResource.class);
  }

  /**
   * The operand's RBAC as the chart ships it ({@link OperandRbac}) and its ServiceAccount and
   * admission policy as the operator renders them for a namespace.
   */
  static final class DraDriverRendering {
    static List<HasMetadata> rbac(String ns) {
      var policy =
          Policies.parse(
              "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n"
                  + "  devicePlugin: {enabled: false}\n  draDriver: {enabled: true}\n");
      var config =
          OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", ns)).withAgents(Policies.agents());
      List<HasMetadata> rendered =
          Operands.renderAll(policy, Policies.facts(), config).stream()
              .filter(r -> r.name().equals(OperandNames.DRA_DRIVER))
              .flatMap(r -> r.objects().stream())
              .filter(o -> !o.getKind().equals("DaemonSet") && !o.getKind().equals("DeviceClass"))
              .collect(java.util.stream.Collectors.toCollection(java.util.ArrayList::new));
      OperandRbac.all(ns).stream()
          .filter(
              o ->
                  o.getMetadata().getName().equals(SA)
                      || o.getMetadata().getName().startsWith("compute-domain-daemon-"))
          .forEach(rendered::add);
      return rendered;
    }
  }
}
