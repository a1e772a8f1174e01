package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.cluster.DriverToolkitFacts;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.spec.Section;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenShift's Driver Toolkit (DTK) path of the driver, as the original renders it: the driver is
 * built in a sidecar running the cluster's Driver Toolkit image for the node's RHCOS version (which
 * has that kernel's headers and compilers), so one driver DaemonSet per RHCOS version of the GPU
 * nodes, {@code nvidia-driver-daemonset-<rhcos>}, selecting its nodes by NFD's OSTree version
 * label. The driver container prepares a shared folder and the sidecar builds from it ({@code
 * ocp_dtk_entrypoint}, in NVIDIA's driver image). Where the ImageStream lacks a version's tag, the
 * driver image itself runs the sidecar and both containers are told ({@code RHCOS_IMAGE_MISSING}).
 *
 * <p>On by default on OpenShift ({@code operator.use_ocp_driver_toolkit} unset or true), used where
 * the cluster has both the ImageStream and GPU nodes with the RHCOS label; precompiled drivers do
 * not use it. Otherwise the sidecar and its folder are removed.
 */
final class DriverToolkitModel {
  static final String CONTAINER = "openshift-driver-toolkit-ctr";
  static final String SHARED_VOLUME = "shared-nvidia-driver-toolkit";
  static final String SHARED_PATH = "/mnt/shared-nvidia-driver-toolkit";
  static final String ENTRYPOINT = "ocp_dtk_entrypoint";

  /** The DaemonSet label naming its RHCOS version. */
  static final String VERSION_LABEL = "openshift.driver-toolkit.rhcos";

  /** Marks the DaemonSets (and pods) of the Driver Toolkit path. */
  static final String TOOLKIT_LABEL = "openshift.driver-toolkit";

  /** Marks a DaemonSet whose RHCOS version has no tag in the ImageStream. */
  static final String IMAGE_MISSING_LABEL = "openshift.driver-toolkit.rhcos-image-missing";

  /** What each container that builds with the toolkit runs ({@code ocp_dtk_entrypoint <arg>}). */
  static final Map<String, String> RUN_WITH_DTK =
      Map.of(
          DriverTransform.CONTAINER, "nv-ctr-run-with-dtk",
          DriverTransform.NVIDIA_FS, "nv-fs-ctr-run-with-dtk",
          DriverTransform.GDRCOPY, "gdrcopy-ctr-run-with-dtk");

  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  private DriverToolkitModel() {}

  /**
   * Whether the driver builds with the Driver Toolkit: on OpenShift, unless {@code
   * operator.use_ocp_driver_toolkit} is false or the driver is precompiled, where the cluster has
   * the ImageStream and GPU nodes with a known RHCOS version.
   */
  static boolean enabled(RenderContext ctx) {
    DriverToolkitFacts dtk = ctx.facts().driverToolkit();
    return requested(ctx)
        && (ctx.spec().driver == null || !Boolean.TRUE.equals(ctx.spec().driver.usePrecompiled))
        && dtk.imageStream()
        && !dtk.rhcosVersions().isEmpty();
  }

  /** Whether the policy asks for it on this cluster (OpenShift, and not turned off). */
  static boolean requested(RenderContext ctx) {
    return DriverToolkitFacts.requested(ctx.spec(), ctx.facts().openShift());
  }

  /** Without the toolkit: no sidecar, no shared folder. */
  static void remove(PodSpec pod) {
    DaemonSets.remove(pod, CONTAINER);
    pod.getVolumes().removeIf(v -> v.getName().equals(SHARED_VOLUME));
  }

  /** One copy of the rendered driver DaemonSet per RHCOS version of the GPU nodes. */
  static List<DaemonSet> perVersion(DaemonSet ds, RenderContext ctx) {
    DriverToolkitFacts dtk = ctx.facts().driverToolkit();
    List<DaemonSet> out = new ArrayList<>();
    for (String version : dtk.rhcosVersions()) {
      DaemonSet copy = KUBE.clone(ds);
      forVersion(copy, version, dtk.images().get(version), ctx);
      out.add(copy);
    }
    return out;
  }

  private static void forVersion(DaemonSet ds, String version, String image, RenderContext ctx) {
    String name = ds.getMetadata().getName() + "-" + version;
    ds.getMetadata().setName(name);
    Map<String, String> labels = labels(ds.getMetadata().getLabels());
    labels.put(Labels.APP, name);
    labels.put(VERSION_LABEL, version);
    labels.put(TOOLKIT_LABEL, "true");
    ds.getMetadata().setLabels(labels);
    ds.getSpec().getSelector().getMatchLabels().put(Labels.APP, name);
    Map<String, String> podLabels = labels(ds.getSpec().getTemplate().getMetadata().getLabels());
    podLabels.put(Labels.APP, name);
    podLabels.put(TOOLKIT_LABEL, "true");
    ds.getSpec().getTemplate().getMetadata().setLabels(podLabels);
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Map<String, String> selector = labels(pod.getNodeSelector());
    selector.put(Labels.NFD_OSTREE_VERSION, version);
    pod.setNodeSelector(selector);

    Container driver = DaemonSets.container(pod, DriverTransform.CONTAINER);
    Container toolkit = DaemonSets.container(pod, CONTAINER);
    DaemonSets.setEnv(toolkit, "RHCOS_VERSION", version);
    if (Section.GDS.enabled(ctx.spec())) {
      DaemonSets.setEnv(toolkit, "GDS_ENABLED", "true");
    }
    if (Section.GDRCOPY.enabled(ctx.spec())) {
      DaemonSets.setEnv(toolkit, "GDRCOPY_ENABLED", "true");
    }
    if (image != null) {
      toolkit.setImage(image);
    } else {
      // No tag for this version: the driver image builds as it would without the toolkit.
      ds.getMetadata().getLabels().put(IMAGE_MISSING_LABEL, "true");
      ds.getSpec().getTemplate().getMetadata().getLabels().put(IMAGE_MISSING_LABEL, "true");
      toolkit.setImage(driver.getImage());
      DaemonSets.setEnv(driver, "RHCOS_IMAGE_MISSING", "true");
      DaemonSets.setEnv(driver, "RHCOS_VERSION", version);
      DaemonSets.setEnv(toolkit, "RHCOS_IMAGE_MISSING", "true");
    }
    toolkit.setImagePullPolicy(driver.getImagePullPolicy());
    for (var run : RUN_WITH_DTK.entrySet()) {
      Container c = DaemonSets.find(pod, run.getKey());
      if (c == null) {
        continue;
      }
      c.setCommand(new ArrayList<>(List.of(ENTRYPOINT)));
      c.setArgs(new ArrayList<>(List.of(run.getValue())));
      if (c.getVolumeMounts().stream().noneMatch(m -> m.getName().equals(SHARED_VOLUME))) {
        c.getVolumeMounts()
            .add(
                new VolumeMountBuilder()
                    .withName(SHARED_VOLUME)
                    .withMountPath(SHARED_PATH)
                    .build());
      }
    }
  }

  private static Map<String, String> labels(Map<String, String> in) {
    return in == null ? new LinkedHashMap<>() : new LinkedHashMap<>(in);
  }
}
