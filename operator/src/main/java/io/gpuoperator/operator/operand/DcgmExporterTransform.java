package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DcgmExporterSpec;
import io.gpuoperator.api.v1.HostPathsSpec;
import io.gpuoperator.operator.spec.Section;
import java.util.Locale;

/**
 * The metrics exporter ({@code nvidia-dcgm-exporter}): NVIDIA's image under the original's
 * contract, or this project's {@code gpu-operator exporter} with the same env; its Service and,
 * when the Prometheus Operator's CRDs exist and {@code dcgmExporter.serviceMonitor.enabled}, its
 * ServiceMonitor and GPU alerts (PrometheusRule {@code nvidia-dcgm-exporter-alerts}). Labelling
 * metrics with pod metadata gets the exporter read access to pods and a service-account token.
 */
public final class DcgmExporterTransform implements Transform {
  static final String CONTAINER = "nvidia-dcgm-exporter";
  static final String METRICS_DIR = "/etc/dcgm-exporter";
  static final String METRICS_FILE = "dcgm-metrics.csv";
  static final String READ_PODS = "nvidia-dcgm-exporter-read-pods";
  static final String DEFAULT_JOB_MAPPING_DIR = "/var/lib/dcgm-exporter/job-mapping";

  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    DcgmExporterSpec spec = ctx.spec().dcgmExporter;
    if (object.getMetadata().getName().equals(READ_PODS)) {
      return podMetadata(spec);
    }
    if (!ServiceMonitors.is(object) && !ManagedObjects.PROMETHEUS_RULE.equals(object.getKind())) {
      return true;
    }
    // The alerts (PrometheusRule nvidia-dcgm-exporter-alerts) go with the ServiceMonitor; the
    // applier skips either kind when its CRD is missing.
    return ctx.facts().serviceMonitorCrd()
        && spec != null
        && spec.serviceMonitor != null
        && Boolean.TRUE.equals(spec.serviceMonitor.enabled);
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    DcgmExporterSpec spec = ctx.spec().dcgmExporter;
    if (ServiceMonitors.is(object)) {
      ServiceMonitors.apply((GenericKubernetesResource) object, spec.serviceMonitor);
      return;
    }
    if (object instanceof Service svc && spec != null && spec.service != null) {
      if (!RenderContext.blank(spec.service.type)) {
        svc.getSpec().setType(spec.service.type.trim());
      }
      if (!RenderContext.blank(spec.service.internalTrafficPolicy)) {
        svc.getSpec().setInternalTrafficPolicy(spec.service.internalTrafficPolicy.trim());
      }
      return;
    }
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    String kubelet = kubeletRootDir(ctx.spec());
    if (kubelet != null) {
      DaemonSets.volume(pod, "pod-gpu-resources").getHostPath().setPath(kubelet + "/pod-resources");
    }
    if (spec != null && spec.config != null && !RenderContext.blank(spec.config.name)) {
      DaemonSets.setEnv(c, "DCGM_EXPORTER_COLLECTORS", METRICS_DIR + "/" + METRICS_FILE);
    }
    if (Section.DCGM.enabled(ctx.spec())) {
      // The standalone host engine instead of the embedded one.
      DaemonSets.setEnv(c, "DCGM_REMOTE_HOSTENGINE_INFO", "nvidia-dcgm:5555");
    }
    if (spec == null) {
      return;
    }
    if (spec.hpcJobMapping != null && Boolean.TRUE.equals(spec.hpcJobMapping.enabled)) {
      String dir =
          RenderContext.blank(spec.hpcJobMapping.directory)
              ? DEFAULT_JOB_MAPPING_DIR
              : spec.hpcJobMapping.directory.trim();
      DaemonSets.setEnv(c, "DCGM_HPC_JOB_MAPPING_DIR", dir);
      DaemonSets.mount(
          c,
          new VolumeMountBuilder()
              .withName("hpc-job-mapping")
              .withMountPath(dir)
              .withReadOnly(true)
              .build());
      DaemonSets.addVolume(
          pod,
          new VolumeBuilder()
              .withName("hpc-job-mapping")
              .withNewHostPath()
              .withPath(dir)
              .withType("DirectoryOrCreate")
              .endHostPath()
              .build());
    }
    if (Boolean.TRUE.equals(spec.enablePodLabels)) {
      DaemonSets.setEnv(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_LABELS", "true");
    }
    if (Boolean.TRUE.equals(spec.enablePodUID)) {
      DaemonSets.setEnv(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID", "true");
    }
    if (spec.podLabelAllowlistRegex != null && !spec.podLabelAllowlistRegex.isEmpty()) {
      DaemonSets.setEnv(
          c,
          "DCGM_EXPORTER_KUBERNETES_POD_LABEL_ALLOWLIST_REGEX",
          String.join(",", spec.podLabelAllowlistRegex));
    }
    if (spec.config != null && !RenderContext.blank(spec.config.name)) {
      DaemonSets.mount(
          c,
          new VolumeMountBuilder()
              .withName("metrics-config")
              .withMountPath(METRICS_DIR + "/" + METRICS_FILE)
              .withSubPath(METRICS_FILE)
              .withReadOnly(true)
              .build());
      DaemonSets.addVolume(
          pod,
          new VolumeBuilder()
              .withName("metrics-config")
              .withNewConfigMap()
              .withName(spec.config.name.trim())
              .addNewItem()
              .withKey(METRICS_FILE)
              .withPath(METRICS_FILE)
              .endItem()
              .endConfigMap()
              .build());
    }
    if (podMetadata(spec) || configMapData(spec)) {
      pod.setAutomountServiceAccountToken(true);
    }
    if (Boolean.TRUE.equals(spec.hostPID)) {
      pod.setHostPID(true);
    }
    if (spec.annotations != null && !spec.annotations.isEmpty()) {
      spec.annotations.forEach((k, v) -> DaemonSets.podAnnotation(ds, k, v));
    }
  }

  /**
   * Whether metrics carry pod labels or UIDs: the policy's switches, or the exporter's own
   * variables in {@code dcgmExporter.env}.
   */
  static boolean podMetadata(DcgmExporterSpec spec) {
    if (spec == null) {
      return false;
    }
    return Boolean.TRUE.equals(spec.enablePodLabels)
        || Boolean.TRUE.equals(spec.enablePodUID)
        || envTrue(spec, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_LABELS")
        || envTrue(spec, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID");
  }

  /** The metrics CSV given as ConfigMap data (read through the API). */
  private static boolean configMapData(DcgmExporterSpec spec) {
    String v = env(spec, "DCGM_EXPORTER_CONFIGMAP_DATA");
    return v != null && !v.isEmpty() && !v.equals("none");
  }

  private static boolean envTrue(DcgmExporterSpec spec, String name) {
    String v = env(spec, name);
    return v != null && v.toLowerCase(Locale.ROOT).equals("true");
  }

  private static String env(DcgmExporterSpec spec, String name) {
    if (spec.env == null) {
      return null;
    }
    return spec.env.stream()
        .filter(e -> name.equals(e.name))
        .map(e -> e.value)
        .reduce((a, b) -> b)
        .orElse(null);
  }

  /** {@code hostPaths.kubeletRootDir} when custom; only the exporter's pod-resources follows it. */
  private static String kubeletRootDir(ClusterPolicySpec spec) {
    HostPathsSpec hp = spec.hostPaths;
    return hp == null
            || RenderContext.blank(hp.kubeletRootDir)
            || hp.kubeletRootDir.trim().equals(HostPathsSpec.DEFAULT_KUBELET_ROOT_DIR)
        ? null
        : hp.kubeletRootDir.trim();
  }
}
