package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.HostPathsSpec;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The DRA driver ({@code spec.draDriver}): our {@code dra-plugin} DaemonSet, its RBAC with the
 * admission policy that keeps it to its own node's ResourceSlices, and NVIDIA's DeviceClasses,
 * written in the newest {@code resource.k8s.io} version the server serves ({@code
 * extendedResourceName} only in {@code v1}, the one version that has it).
 */
final class DraDriverTransform implements Transform {
  /** The plugin's container. */
  static final String CONTAINER = "gpus";

  /** The plugin's ServiceAccount, which the admission policy restricts. */
  static final String SERVICE_ACCOUNT = "nvidia-dra-driver-gpu";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (object instanceof ValidatingAdmissionPolicy policy) {
      String user = "system:serviceaccount:" + ctx.namespace() + ":" + SERVICE_ACCOUNT;
      policy
          .getSpec()
          .getMatchConditions()
          .forEach(c -> c.setExpression("request.userInfo.username == '" + user + "'"));
    } else if (object instanceof DaemonSet ds) {
      PodSpec pod = ds.getSpec().getTemplate().getSpec();
      String kubelet = ctx.customKubeletRootDir();
      if (kubelet != null) {
        // The kubelet dials the socket path the plugin registers, so the container sees the
        // kubelet's directories at their host paths.
        kubeletRoot(pod, kubelet);
      }
      if (Section.DEVICE_PLUGIN.enabled(ctx.spec())) {
        // The node labels never give a node both; this holds even against labels set by hand.
        notWhereTheDevicePluginRuns(pod);
      }
    }
  }

  @Override
  public List<HasMetadata> finish(List<HasMetadata> objects, RenderContext ctx) {
    ResourceApiVersion version = ctx.facts().resourceApi();
    if (version == null) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  Section.DRA_DRIVER.path() + ".enabled",
                  "the API server serves no resource.k8s.io version with structured parameters"
                      + " (v1, v1beta2 or v1beta1): Dynamic Resource Allocation needs Kubernetes"
                      + " 1.32 or newer (1.34 without feature gates)")));
    }
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata o : objects) {
      out.add(o instanceof DeviceClass dc ? deviceClass(dc, version) : o);
    }
    return out;
  }

  /** The DeviceClass as the server's version has it. */
  @SuppressWarnings("unchecked")
  static HasMetadata deviceClass(DeviceClass dc, ResourceApiVersion version) {
    if (version == ResourceApiVersion.V1) {
      return dc;
    }
    GenericKubernetesResource g = SERIALIZATION.convertValue(dc, GenericKubernetesResource.class);
    g.setApiVersion(version.apiVersion());
    Object spec = g.getAdditionalProperties().get("spec");
    if (spec instanceof Map<?, ?> m) {
      ((Map<String, Object>) m).remove("extendedResourceName");
    }
    return g;
  }

  private static void kubeletRoot(PodSpec pod, String root) {
    String from = HostPathsSpec.DEFAULT_KUBELET_ROOT_DIR;
    for (Volume v : pod.getVolumes()) {
      if (v.getHostPath() != null && v.getHostPath().getPath().startsWith(from + "/")) {
        v.getHostPath().setPath(root + v.getHostPath().getPath().substring(from.length()));
      }
    }
    Container c = DaemonSets.container(pod, CONTAINER);
    for (VolumeMount m : c.getVolumeMounts()) {
      if (m.getMountPath().startsWith(from + "/")) {
        m.setMountPath(root + m.getMountPath().substring(from.length()));
      }
    }
    for (EnvVar e : c.getEnv()) {
      if (e.getValue() != null && e.getValue().startsWith(from + "/")) {
        e.setValue(root + e.getValue().substring(from.length()));
      }
    }
  }

  private static void notWhereTheDevicePluginRuns(PodSpec pod) {
    var requirement =
        new NodeSelectorRequirementBuilder()
            .withKey(Labels.deploy(Labels.DEVICE_PLUGIN))
            .withOperator("NotIn")
            .withValues(Labels.TRUE)
            .build();
    if (pod.getAffinity() == null) {
      pod.setAffinity(new io.fabric8.kubernetes.api.model.Affinity());
    }
    var affinity = pod.getAffinity();
    if (affinity.getNodeAffinity() == null) {
      affinity.setNodeAffinity(new io.fabric8.kubernetes.api.model.NodeAffinity());
    }
    var node = affinity.getNodeAffinity();
    if (node.getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      node.setRequiredDuringSchedulingIgnoredDuringExecution(
          new io.fabric8.kubernetes.api.model.NodeSelector(new ArrayList<>()));
    }
    List<NodeSelectorTerm> terms =
        node.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
    if (terms.isEmpty()) {
      terms.add(new NodeSelectorTerm(new ArrayList<>(), new ArrayList<>()));
    }
    // Terms are ORed: the requirement goes into each.
    for (NodeSelectorTerm t : terms) {
      if (t.getMatchExpressions() == null) {
        t.setMatchExpressions(new ArrayList<>());
      }
      t.getMatchExpressions().add(requirement);
    }
  }
}
