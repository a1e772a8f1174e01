package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import io.gpuoperator.operator.runtime.GpuOperator;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code helm install} (helm-java) into a real API server with the deployment and replicaset
 * controllers, into a namespace that enforces the {@code restricted} Pod Security Standard: the
 * chart creates the CRDs, RBAC, the ClusterPolicy and the operator Deployment, whose two pods the
 * API server admits (a privileged operand pod is refused there). Then an operator authenticated as
 * the chart's ServiceAccount, with only the chart's RBAC, reconciles the policy: its permissions
 * are enough, and it labels its namespace for the privileged operands ({@code psa.enabled}).
 */
class ChartInstallIT {
  private static final String NS = "gpu-operator";

  /** The subcommands of this binary: the agents the operator renders, as in the image. */
  private static final java.util.Set<String> AGENTS =
      OperatorConfig.subcommandsOf(
          io.gpuoperator.cli.GpuOperatorCommand.commandLine().getCommandSpec());

  private static ControlPlane cp;

  @BeforeAll
  static void start() throws Exception {
    cp =
        ControlPlane.builder()
            .controllers(ControlPlane.GC_CONTROLLERS + ",deployment,replicaset")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cp != null) {
      cp.close();
    }
  }

  @Test
  void installCreatesEverythingAndTheOperatorRunsWithTheChartsRbac() throws Exception {
    KubernetesClient admin = cp.client();
    ControlPlaneExtension.createNamespace(
        admin,
        NS,
        Map.of(
            "pod-security.kubernetes.io/enforce",
            "restricted",
            "pod-security.kubernetes.io/enforce-version",
            "latest"));

    var release =
        new Helm(ChartFiles.CHART)
            .install()
            .withName(HelmChart.RELEASE)
            .withNamespace(NS)
            .withKubeConfig(cp.kubeconfig())
            .set("psa.enabled", "true")
            .call();
    assertThat(release.getStatus()).isEqualTo("deployed");

    for (String crd : List.of("clusterpolicies.nvidia.com", "nvidiadrivers.nvidia.com")) {
      assertThat(admin.apiextensions().v1().customResourceDefinitions().withName(crd).get())
          .as(crd)
          .isNotNull();
    }
    assertThat(admin.rbac().clusterRoles().withName("gpu-operator").get()).isNotNull();
    assertThat(admin.rbac().clusterRoleBindings().withName("gpu-operator").get()).isNotNull();
    assertThat(admin.rbac().roles().inNamespace(NS).withName("gpu-operator").get()).isNotNull();
    assertThat(admin.rbac().clusterRoles().withName("nvidia-device-plugin").get()).isNotNull();
    assertThat(
            admin
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(NS)
                .withName("gpu-operator")
                .get())
        .isNotNull();
    assertThat(
            admin
                .apps()
                .deployments()
                .inNamespace(NS)
                .withName("gpu-operator")
                .get()
                .getSpec()
                .getReplicas())
        .isEqualTo(2);

    // The restricted namespace admits the Deployment's pods (created by the ReplicaSet).
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(
                        admin
                            .pods()
                            .inNamespace(NS)
                            .withLabel("app.kubernetes.io/component", "operator")
                            .list()
                            .getItems())
                    .hasSize(2));
    // ... and refuses a privileged operand's pod: the enforcement is real.
    ClusterPolicy policy = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
    assertThatThrownBy(
            () -> admin.pods().inNamespace(NS).resource(privilegedPod(policy)).dryRun().create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("violates PodSecurity \"restricted:latest\"");

    // The operator as the chart's ServiceAccount, with the chart's RBAC and nothing else.
    Config config = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
    config.setImpersonateUsername("system:serviceaccount:" + NS + ":gpu-operator");
    config.setImpersonateGroups(
        "system:serviceaccounts", "system:serviceaccounts:" + NS, "system:authenticated");
    try (KubernetesClient asOperator = new KubernetesClientBuilder().withConfig(config).build();
        GpuOperator operator =
            new GpuOperator(
                    asOperator,
                    OperatorConfig.fromEnv(
                            Map.of(
                                "OPERATOR_NAMESPACE", NS, "METRICS_PORT", "0", "HEALTH_PORT", "0"))
                        .withAgents(AGENTS),
                    new OperandRegistryRenderer(),
                    new NodeLabelRulesPlanner(),
                    GpuOperator.Options.on("127.0.0.1", "chart-install-it", false, 4))
                .start()) {
      await()
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () -> {
                assertThat(
                        admin.apps().daemonSets().inNamespace(NS).list().getItems().stream()
                            .map(ds -> ds.getMetadata().getName()))
                    .contains(
                        "nvidia-device-plugin-daemonset",
                        "nvidia-operator-validator",
                        "gpu-feature-discovery",
                        "nvidia-dcgm-exporter",
                        "nvidia-mig-manager");
                ClusterPolicy p =
                    admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
                assertThat(p.getStatus()).isNotNull();
                assertThat(p.getStatus().namespace).isEqualTo(NS);
                assertThat(admin.namespaces().withName(NS).get().getMetadata().getLabels())
                    .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
              });
      assertThat(operator.isLeader()).isTrue();
    }
  }

  /** The driver DaemonSet's pod as the operator renders it from the chart's policy. */
  private static Pod privilegedPod(ClusterPolicy policy) {
    var facts = io.gpuoperator.cli.images.ImagesCommand.FACTS;
    var config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", NS)).withAgents(AGENTS);
    DaemonSet driver =
        Operands.renderAll(policy, facts, config).stream()
            .filter(r -> r.name().equals(OperandNames.DRIVER))
            .flatMap(r -> r.objects().stream())
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    var spec = driver.getSpec().getTemplate().getSpec();
    spec.setServiceAccountName(null); // its ServiceAccount is the operator's to create
    return new PodBuilder()
        .withNewMetadata()
        .withName("privileged-driver")
        .withNamespace(NS)
        .endMetadata()
        .withSpec(spec)
        .build();
  }
}
