package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.api.Crds;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's CRD self-upgrade on a real API server: an installed CRD older than the build (a
 * field missing, as after {@code helm upgrade}, which never upgrades CRDs) is brought up to date at
 * start, and an operator that may not upgrade it does not report ready, saying why.
 */
@ExtendWith(ControlPlaneExtension.class)
class CrdUpgradeIT {
  private static final String CRD = "nvidiadrivers.nvidia.com";

  @Test
  void anOlderCrdIsUpgradedAndOneThatCannotBeKeepsTheOperatorUnready(
      ControlPlane cp, KubernetesClient admin) throws Exception {
    Crds.apply(admin);
    try {
      installOlder(admin);
      assertThat(CrdUpgrade.missing(installed(admin), bundled())).contains("v1alpha1:spec.args");

      // Without update on CRDs: not ready, the reason on /readyz; nothing reconciles.
      String user = "crd-reader";
      admin
          .rbac()
          .clusterRoles()
          .resource(
              new ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(user)
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("apiextensions.k8s.io")
                  .withResources("customresourcedefinitions")
                  .withVerbs("get", "list", "watch")
                  .endRule()
                  .build())
          .serverSideApply();
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(user)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", user)
                  .addNewSubject()
                  .withKind("User")
                  .withName(user)
                  .endSubject()
                  .build())
          .serverSideApply();
      Config config = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
      config.setImpersonateUsername(user);
      config.setImpersonateGroups("system:authenticated");
      try (KubernetesClient reader = new KubernetesClientBuilder().withConfig(config).build();
          GpuOperator operator = operator(reader).start()) {
        HttpResponse<String> ready = readyz(operator);
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body())
            .contains("CRD " + CRD + " could not be checked or upgraded (forbidden")
            .contains("grant the operator update on customresourcedefinitions/" + CRD);
      }
      assertThat(CrdUpgrade.missing(installed(admin), bundled())).isNotEmpty();

      // With the right: upgraded at start, then ready.
      try (GpuOperator operator = operator(admin).start()) {
        assertThat(CrdUpgrade.missing(installed(admin), bundled())).isEmpty();
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(() -> assertThat(readyz(operator).statusCode()).isEqualTo(200));
      }
    } finally {
      admin.rbac().clusterRoleBindings().withName("crd-reader").delete();
      admin.rbac().clusterRoles().withName("crd-reader").delete();
      Crds.apply(admin);
    }
  }

  /** A CRD newer than the build (a field the build lacks) is left as it is. */
  @Test
  void aNewerCrdIsLeftAlone() {
    CustomResourceDefinition newer = bundled();
    CustomResourceDefinition older = withoutArgs(bundled());
    assertThat(CrdUpgrade.missing(newer, older)).isEmpty();
    assertThat(CrdUpgrade.missing(older, newer)).containsExactly("v1alpha1:spec.args");
  }

  private static GpuOperator operator(KubernetesClient client) {
    OperatorConfig config =
        OperatorConfig.fromEnv(
            Map.of(
                "OPERATOR_NAMESPACE", "default",
                "METRICS_PORT", "0",
                "HEALTH_PORT", "0",
                "LEADER_ELECT", "false"));
    return new GpuOperator(
        client,
        config,
        new OperandRegistryRenderer(),
        new NodeLabelRulesPlanner(),
        GpuOperator.Options.on("127.0.0.1", "crd-upgrade-it", false, 2));
  }

  private static void installOlder(KubernetesClient admin) {
    admin.resource(withoutArgs(installed(admin))).update();
  }

  /** The CRD as an older release had it: without {@code spec.args}. */
  private static CustomResourceDefinition withoutArgs(CustomResourceDefinition crd) {
    Crds.specSchema(crd).getProperties().remove("args");
    return crd;
  }

  private static CustomResourceDefinition installed(KubernetesClient admin) {
    return admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get();
  }

  private static CustomResourceDefinition bundled() {
    return Crds.load().stream()
        .filter(c -> c.getMetadata().getName().equals(CRD))
        .findFirst()
        .orElseThrow();
  }

  private static HttpResponse<String> readyz(GpuOperator operator) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + operator.healthPort() + "/readyz"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
