package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.node.discovery.DiscoverySettings;
import java.util.ArrayList;
import java.util.List;

/**
 * Our feature discovery ({@code gpu-operator feature-discovery}) in the {@code
 * gpu-feature-discovery} DaemonSet: labels its node with the GPUs' model, memory, MIG and sharing
 * facts. It reads the node's device-plugin config, which NVIDIA's config-manager picks, so that the
 * sharing labels match what the device plugin advertises.
 *
 * <p>Where NFD runs the labels are published as NFD NodeFeature objects (as NVIDIA's image does);
 * without NFD the agent patches its own Node's labels (the chart's ClusterRole allows both, see
 * {@link OperandRbac}).
 *
 * <p>Without NFD nothing would find the GPU nodes that feature discovery is to run on, so then the
 * {@code nvidia-pci-discovery} DaemonSet ({@code manifests/pci-discovery}) comes with it: our
 * image's {@code pci-discovery} on every node not yet labelled {@code nvidia.com/gpu.pci.present},
 * which labels it from its PCI devices (the operator's node rules read that label where NFD's are
 * absent), under feature discovery's ServiceAccount, image and pull secrets.
 */
public final class GpuFeatureDiscoveryAgentTransform implements Transform {
  /** The agent's output setting and the two values the operator chooses between. */
  static final String OUTPUT_ENV = DiscoverySettings.OUTPUT.envName();

  static final String OUTPUT_NODE_FEATURE = "node-feature";
  static final String OUTPUT_NODE_LABELS = "node-labels";

  /** The folder of the PCI discovery DaemonSet rendered without NFD. */
  static final String PCI_DISCOVERY = "pci-discovery";

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    boolean nfd = ctx.facts().nfdLabelsPresent();
    if (object instanceof DaemonSet ds) {
      Container c =
          DaemonSets.container(
              ds.getSpec().getTemplate().getSpec(), GpuFeatureDiscoveryTransform.CONTAINER);
      DaemonSets.setEnv(c, DiscoverySettings.MIG_STRATEGY, ctx.migStrategy());
      DaemonSets.setEnv(
          c, DiscoverySettings.OUTPUT, nfd ? OUTPUT_NODE_FEATURE : OUTPUT_NODE_LABELS);
      ComponentSpec gfd = ctx.spec().gfd;
      ConfigManager.apply(ds, c, ctx, gfd == null ? null : gfd.resources);
    }
  }

  @Override
  public List<HasMetadata> finish(List<HasMetadata> objects, RenderContext ctx) {
    if (ctx.facts().nfdLabelsPresent()) {
      return objects;
    }
    DaemonSet gfd =
        objects.stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElse(null);
    if (gfd == null) {
      return objects;
    }
    var gfdPod = gfd.getSpec().getTemplate().getSpec();
    Container gfdMain = DaemonSets.container(gfdPod, GpuFeatureDiscoveryTransform.CONTAINER);
    List<HasMetadata> out = new ArrayList<>(objects);
    for (HasMetadata object : Manifests.load(PCI_DISCOVERY)) {
      object.getMetadata().setNamespace(ctx.namespace());
      if (object instanceof DaemonSet ds) {
        var pod = ds.getSpec().getTemplate().getSpec();
        for (Container c : pod.getContainers()) {
          c.setImage(gfdMain.getImage());
          c.setImagePullPolicy(gfdMain.getImagePullPolicy());
        }
        pod.setImagePullSecrets(gfdPod.getImagePullSecrets());
        DaemonSets.applyLabelsAndAnnotations(ds, ctx.spec().daemonsets);
      }
      out.add(out.indexOf(gfd) + 1, object);
    }
    return out;
  }
}
