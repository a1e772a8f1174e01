package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;

/** Three small operands for reconciler ITs that do not depend on the real operand manifests. */
final class TestOperands implements PolicyRenderer {
  @Override
  public List<Violation> validate(ClusterPolicy policy) {
    return List.of();
  }

  @Override
  public List<RenderedOperand> render(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    var spec = policy.getSpec();
    List<RenderedOperand> out = new ArrayList<>();
    out.add(
        new RenderedOperand(
            "pre-requisites",
            true,
            List.of(
                new RuntimeClassBuilder()
                    .withNewMetadata()
                    .withName("nvidia-it")
                    .endMetadata()
                    .withHandler("nvidia")
                    .build())));
    boolean driver = spec.driver == null || spec.driver.isEnabled(true);
    out.add(
        new RenderedOperand(
            "driver",
            driver,
            driver
                ? List.of(
                    new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("nvidia-driver")
                        .withNamespace(config.namespace())
                        .endMetadata()
                        .build(),
                    daemonSet(
                        config.namespace(), "nvidia-driver-daemonset", "OnDelete", "driver:1"))
                : List.of()));
    boolean plugin = spec.devicePlugin == null || spec.devicePlugin.isEnabled(true);
    String version = spec.devicePlugin == null ? null : spec.devicePlugin.version;
    if (spec.devicePlugin != null
        && spec.devicePlugin.repository != null
        && spec.devicePlugin.image == null) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  "spec.devicePlugin.image", "repository is set, so image and version must be")));
    }
    List<HasMetadata> pluginObjects =
        List.of(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("plugin-config")
                .withNamespace(config.namespace())
                .endMetadata()
                .addToData("config.yaml", "version: v1\n")
                .build(),
            daemonSet(
                config.namespace(),
                "nvidia-device-plugin-daemonset",
                "RollingUpdate",
                "plugin:" + (version == null ? "v1" : version)));
    out.add(new RenderedOperand("device-plugin", plugin, plugin ? pluginObjects : List.of()));
    return out;
  }

  static DaemonSet daemonSet(String ns, String name, String strategy, String image) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewUpdateStrategy()
        .withType(strategy)
        .endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
