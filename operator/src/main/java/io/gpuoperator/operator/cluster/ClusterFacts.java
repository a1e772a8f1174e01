package io.gpuoperator.operator.cluster;

import io.gpuoperator.api.dra.ResourceApiVersion;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the operator learned about the cluster before rendering (observe, then act).
 *
 * @param kubernetesVersion server git version, e.g. "v1.36.3"
 * @param containerRuntime containerd, crio or docker, from the GPU nodes' containerRuntimeVersion
 * @param serviceMonitorCrd whether monitoring.coreos.com ServiceMonitor exists
 * @param gpuNodeCount nodes labelled nvidia.com/gpu.present=true
 * @param nfdLabelsPresent whether any node has feature.node.kubernetes.io labels
 * @param osTag OS tag of the GPU nodes for driver images, e.g. "ubuntu22.04", or null if unknown
 * @param kernelVersions distinct {@code feature.node.kubernetes.io/kernel-version.full} values of
 *     the GPU nodes, sorted; a precompiled driver gets one DaemonSet per kernel
 * @param configMapKeys the keys of the ConfigMaps the policy has the driver mount file by file
 *     (repoConfig, certConfig, kernelModuleConfig), by name, sorted; a name that is absent does not
 *     exist in the operator namespace
 * @param resourceApi the newest {@code resource.k8s.io} version the server serves (DeviceClasses
 *     are written in it), or null when it serves none with structured parameters (before Kubernetes
 *     1.32): the DRA driver cannot be deployed. Rendering without a server assumes {@code v1}.
 * @param systems the distinct OS and kernel combinations of the GPU nodes, sorted ({@link
 *     NodeSystem#ORDER}); GPU nodes of several OSes get one driver DaemonSet per OS. Empty when not
 *     known (offline facts): the driver then renders for {@code osTag} and {@code kernelVersions}
 * @param openShift whether the cluster is OpenShift ({@link OpenShift}): operands then get their
 *     SecurityContextConstraints
 * @param driverToolkit the RHCOS versions of the GPU nodes and OpenShift's Driver Toolkit images
 *     ({@link DriverToolkitFacts#NONE} when not known)
 */
public record ClusterFacts(
    String kubernetesVersion,
    String containerRuntime,
    boolean serviceMonitorCrd,
    int gpuNodeCount,
    boolean nfdLabelsPresent,
    String osTag,
    List<String> kernelVersions,
    Map<String, List<String>> configMapKeys,
    ResourceApiVersion resourceApi,
    List<NodeSystem> systems,
    boolean openShift,
    DriverToolkitFacts driverToolkit) {

  public ClusterFacts {
    kernelVersions = kernelVersions == null ? List.of() : List.copyOf(kernelVersions);
    configMapKeys = configMapKeys == null ? Map.of() : Map.copyOf(configMapKeys);
    systems = systems == null ? List.of() : List.copyOf(systems);
    driverToolkit = driverToolkit == null ? DriverToolkitFacts.NONE : driverToolkit;
  }

  /**
   * The server-wide facts of a server that serves {@code resource.k8s.io/v1}; the per-node ones
   * (kernels, ConfigMap keys, systems) are empty until a wither adds them. Without kernel versions
   * a precompiled driver renders no DaemonSet.
   */
  public ClusterFacts(
      String kubernetesVersion,
      String containerRuntime,
      boolean serviceMonitorCrd,
      int gpuNodeCount,
      boolean nfdLabelsPresent,
      String osTag) {
    this(
        kubernetesVersion,
        containerRuntime,
        serviceMonitorCrd,
        gpuNodeCount,
        nfdLabelsPresent,
        osTag,
        List.of(),
        Map.of(),
        ResourceApiVersion.V1,
        List.of(),
        false,
        DriverToolkitFacts.NONE);
  }

  /**
   * Facts for rendering without a cluster (plan --nodes, golden tests): the oldest supported
   * server, since what renders for it renders for every supported one.
   */
  public static ClusterFacts offline(int gpuNodes, String osTag) {
    return new ClusterFacts(
        KubernetesVersion.MINIMUM.gitVersion(), "containerd", false, gpuNodes, gpuNodes > 0, osTag);
  }

  /** The same facts with the GPU nodes' kernel versions. */
  public ClusterFacts withKernelVersions(List<String> kernels) {
    return with(
        osTag,
        kernels == null ? List.of() : kernels.stream().distinct().sorted().toList(),
        configMapKeys,
        resourceApi,
        systems);
  }

  /** The same facts with the keys of the ConfigMaps the driver mounts (by name). */
  public ClusterFacts withConfigMapKeys(Map<String, List<String>> keys) {
    return with(osTag, kernelVersions, keys, resourceApi, systems);
  }

  /** The same facts with the server's {@code resource.k8s.io} version (null: none). */
  public ClusterFacts withResourceApi(ResourceApiVersion version) {
    return with(osTag, kernelVersions, configMapKeys, version, systems);
  }

  /** The same facts with the GPU nodes' systems (distinct, sorted). */
  public ClusterFacts withSystems(Collection<NodeSystem> all) {
    return with(
        osTag,
        kernelVersions,
        configMapKeys,
        resourceApi,
        all == null ? List.of() : all.stream().distinct().sorted(NodeSystem.ORDER).toList());
  }

  /** The same facts on OpenShift (true) or another distribution. */
  public ClusterFacts withOpenShift(boolean on) {
    return with(osTag, kernelVersions, configMapKeys, resourceApi, systems, on, driverToolkit);
  }

  /** The same facts with the Driver Toolkit's (RHCOS versions, ImageStream). */
  public ClusterFacts withDriverToolkit(DriverToolkitFacts dtk) {
    return with(osTag, kernelVersions, configMapKeys, resourceApi, systems, openShift, dtk);
  }

  /** The distinct OS tags of the GPU nodes whose OS is known, sorted. */
  public List<String> osTags() {
    return systems.stream().map(NodeSystem::osTag).filter(Objects::nonNull).distinct().toList();
  }

  /**
   * The facts one OS's driver DaemonSet is rendered from: that OS's tag, and the kernels of its
   * nodes only.
   */
  public ClusterFacts forOs(String tag) {
    List<NodeSystem> mine = systems.stream().filter(s -> Objects.equals(tag, s.osTag())).toList();
    return with(
        tag,
        mine.stream().map(NodeSystem::kernel).filter(Objects::nonNull).distinct().sorted().toList(),
        configMapKeys,
        resourceApi,
        mine);
  }

  // The facts observed per node; the server-wide ones (version, runtime, counts) never change here.
  private ClusterFacts with(
      String os,
      List<String> kernels,
      Map<String, List<String>> keys,
      ResourceApiVersion api,
      List<NodeSystem> sys) {
    return with(os, kernels, keys, api, sys, openShift, driverToolkit);
  }

  private ClusterFacts with(
      String os,
      List<String> kernels,
      Map<String, List<String>> keys,
      ResourceApiVersion api,
      List<NodeSystem> sys,
      boolean onOpenShift,
      DriverToolkitFacts dtk) {
    return new ClusterFacts(
        kubernetesVersion,
        containerRuntime,
        serviceMonitorCrd,
        gpuNodeCount,
        nfdLabelsPresent,
        os,
        kernels,
        keys,
        api,
        sys,
        onOpenShift,
        dtk);
  }
}
