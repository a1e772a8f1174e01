package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.gpuoperator.api.common.ImageSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DevicePluginSpec;
import io.gpuoperator.api.v1.DraDriverSpec;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.api.v1alpha1.GPUClusterDraDriverSpec;
import io.gpuoperator.api.v1alpha1.GPUClusterSpec;
import io.gpuoperator.node.dra.DraPluginSettings;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.ImageRules;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a GPUCluster deploys, rendered by the same pipeline as {@code ClusterPolicy.spec.draDriver}
 * (the {@code dra-driver} operand of {@link Operands}): the GPUCluster's fields are mapped onto a
 * policy that deploys the DRA driver only. The one difference is what the plugin waits for: with a
 * GPUCluster there is no ClusterPolicy, so no container toolkit and no validator writes {@code
 * toolkit-ready}; the plugin waits for the driver instead, as NVIDIA's GPUCluster stack does.
 */
public final class GpuClusterModel {
  /** The init container that replaces the toolkit wait. */
  static final String DRIVER_WAIT = "driver-validation";

  /** The markers of a ready driver: the validator's, or the driver container's own. */
  static final String DRIVER_WAIT_SCRIPT =
      "until [ -f /run/nvidia/validations/driver-ready ]"
          + " || [ -f /run/nvidia/validations/.driver-ctr-ready ];"
          + " do echo waiting for the NVIDIA driver; sleep 5; done";

  private GpuClusterModel() {}

  /** The policy a GPUCluster stands for: only the DRA driver, with the GPUCluster's settings. */
  public static ClusterPolicy policyFor(GPUCluster cluster) {
    GPUClusterSpec gc = cluster.getSpec() == null ? new GPUClusterSpec() : cluster.getSpec();
    ClusterPolicySpec spec = new ClusterPolicySpec();
    DraDriverSpec dra = new DraDriverSpec();
    dra.enabled = true;
    GPUClusterDraDriverSpec d = gc.draDriver;
    if (d != null) {
      ImageSpec.copy(d, dra);
      if (d.gpus != null && d.gpus.kubeletPlugin != null) {
        dra.env = d.gpus.kubeletPlugin.env;
        dra.resources = d.gpus.kubeletPlugin.resources;
      }
    }
    spec.draDriver = dra;
    // No device plugin runs with a GPUCluster: the plugin needs no anti-affinity against it.
    DevicePluginSpec devicePlugin = new DevicePluginSpec();
    devicePlugin.enabled = false;
    spec.devicePlugin = devicePlugin;
    spec.hostPaths = gc.hostPaths;
    spec.daemonsets = gc.daemonsets;
    ClusterPolicy policy = new ClusterPolicy();
    policy.setMetadata(new ObjectMeta());
    policy.getMetadata().setName(cluster.getMetadata().getName());
    policy.setSpec(spec);
    return policy;
  }

  /**
   * The DRA driver's objects for a GPUCluster, stamped as the {@code dra-driver} operand's.
   *
   * @throws PolicyValidationException naming each invalid {@code spec.draDriver} field
   */
  public static List<HasMetadata> render(
      GPUCluster cluster, ClusterFacts facts, OperatorConfig config) {
    ClusterPolicy policy = policyFor(cluster);
    List<Violation> bad =
        ImageRules.check(Section.DRA_DRIVER.of(policy.getSpec()), "spec.draDriver");
    if (!bad.isEmpty()) {
      throw new PolicyValidationException(bad);
    }
    Operand operand = Operands.byName(OperandNames.DRA_DRIVER);
    List<HasMetadata> objects = new ArrayList<>(operand.render(policy, facts, config));
    objects.addAll(runtimeClassesNamed(objects, policy, facts, config));
    if (computeDomains(cluster) && facts.resourceApi() != null) {
      objects.addAll(ComputeDomainModel.deviceClasses(facts.resourceApi()));
    }
    for (HasMetadata o : objects) {
      if (o instanceof DaemonSet ds) {
        waitForDriver(ds);
        if (computeDomains(cluster)) {
          // The plugin then also serves NVIDIA's compute-domain.nvidia.com driver.
          DaemonSets.setEnv(
              DaemonSets.container(
                  ds.getSpec().getTemplate().getSpec(), DraDriverTransform.CONTAINER),
              DraPluginSettings.COMPUTE_DOMAINS,
              true);
        }
      }
      ManagedObjects.stamp(o, operand.name(), config.namespace());
    }
    return objects;
  }

  /**
   * The pre-requisites' RuntimeClasses that the rendered pods name ({@code nvidia}): with a
   * ClusterPolicy that operand creates them; a GPUCluster renders no other operand, so the ones its
   * DaemonSets run with come with them here, owned by the GPUCluster. The runtime handler itself is
   * the host's container toolkit, which a GPUCluster does not install (as in the original).
   */
  private static List<HasMetadata> runtimeClassesNamed(
      List<HasMetadata> objects, ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    Set<String> named =
        objects.stream()
            .filter(DaemonSet.class::isInstance)
            .map(o -> ((DaemonSet) o).getSpec().getTemplate().getSpec().getRuntimeClassName())
            .filter(Objects::nonNull)
            .collect(Collectors.toSet());
    if (named.isEmpty()) {
      return List.of();
    }
    return Operands.byName(OperandNames.PRE_REQUISITES).render(policy, facts, config).stream()
        .filter(o -> o instanceof RuntimeClass && named.contains(o.getMetadata().getName()))
        .toList();
  }

  /** Whether {@code draDriver.computeDomains.enabled} is true (off by default, as NVIDIA's). */
  public static boolean computeDomains(GPUCluster cluster) {
    GPUClusterDraDriverSpec d = cluster.getSpec() == null ? null : cluster.getSpec().draDriver;
    return d != null && d.computeDomains != null && Boolean.TRUE.equals(d.computeDomains.enabled);
  }

  private static void waitForDriver(DaemonSet ds) {
    List<Container> inits = ds.getSpec().getTemplate().getSpec().getInitContainers();
    for (Container init : inits == null ? List.<Container>of() : inits) {
      if (init.getName().endsWith("-validation")) {
        init.setName(DRIVER_WAIT);
        init.setCommand(new ArrayList<>(List.of("sh", "-c")));
        init.setArgs(new ArrayList<>(List.of(DRIVER_WAIT_SCRIPT)));
      }
    }
  }

  /**
   * What the GPUCluster asks for that this operator does not deploy, by field, for the status's
   * IgnoredFields condition (never dropped silently); empty when everything set is honoured.
   */
  public static List<Violation> unsupported(GPUCluster cluster) {
    List<Violation> out = new ArrayList<>();
    GPUClusterSpec gc = cluster.getSpec();
    if (gc == null) {
      return out;
    }
    GPUClusterDraDriverSpec d = gc.draDriver;
    if (d != null && d.computeDomains != null && d.computeDomains.controller != null) {
      out.add(
          new Violation(
              "spec.draDriver.computeDomains.controller",
              "the ComputeDomain controller runs inside the operator, not as a Deployment of its"
                  + " own: its env and resources do not apply"));
    }
    if (d != null && d.featureGates != null && !d.featureGates.isEmpty()) {
      out.add(
          new Violation(
              "spec.draDriver.featureGates",
              "this DRA plugin has no feature gates (time-slicing, MPS and partitionable MIG are always"
                  + " available); ignored: "
                  + String.join(", ", new TreeMap<>(d.featureGates).keySet())));
    }
    if (d != null
        && d.gpus != null
        && d.gpus.kubeletPlugin != null
        && d.gpus.kubeletPlugin.healthcheck != null
        && Boolean.TRUE.equals(d.gpus.kubeletPlugin.healthcheck.enabled)) {
      out.add(
          new Violation(
              "spec.draDriver.gpus.kubeletPlugin.healthcheck.enabled",
              "this DRA plugin serves no gRPC health check; the DaemonSet has no probe"));
    }
    if (gc.dcgm != null && Boolean.TRUE.equals(gc.dcgm.enabled)) {
      out.add(
          new Violation(
              "spec.dcgm.enabled", "DCGM is not deployed from a GPUCluster by this operator"));
    }
    if (gc.dcgmExporter != null && Boolean.TRUE.equals(gc.dcgmExporter.enabled)) {
      out.add(
          new Violation(
              "spec.dcgmExporter.enabled",
              "the DCGM exporter is not deployed from a GPUCluster by this operator"));
    }
    return out;
  }
}
