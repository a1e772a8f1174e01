package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.DcgmExporterSpec;
import io.gpuoperator.operator.spec.Section;
import java.util.LinkedHashMap;

/**
 * The metrics exporter {@code nvidia-dcgm-exporter} (NVIDIA's image), its Service and, when the CRD
 * exists and {@code dcgmExporter.serviceMonitor.enabled}, its ServiceMonitor.
 */
public final class DcgmExporterTransform implements Transform {
  static final String CONTAINER = "nvidia-dcgm-exporter";
  static final String METRICS_DIR = "/etc/dcgm-exporter";
  static final String METRICS_FILE = "dcgm-metrics.csv";
  static final String READ_PODS = "nvidia-dcgm-exporter-read-pods";

  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    DcgmExporterSpec spec = ctx.spec().dcgmExporter;
    if (object.getMetadata().getName().equals(READ_PODS)) {
      // Reading pod labels and UIDs needs access to pods, granted only when asked for.
      return spec != null
          && (Boolean.TRUE.equals(spec.enablePodLabels) || Boolean.TRUE.equals(spec.enablePodUID));
    }
    if (!ServiceMonitors.is(object)) {
      return true;
    }
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
      if (spec.service.type != null && !spec.service.type.isBlank()) {
        svc.getSpec().setType(spec.service.type.trim());
      }
      if (spec.service.internalTrafficPolicy != null
          && !spec.service.internalTrafficPolicy.isBlank()) {
        svc.getSpec().setInternalTrafficPolicy(spec.service.internalTrafficPolicy.trim());
      }
      return;
    }
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    if (Section.DCGM.enabled(ctx.spec())) {
      // Use the standalone host engine instead of the embedded one.
      DaemonSets.setEnv(c, "DCGM_REMOTE_HOSTENGINE_INFO", "nvidia-dcgm:5555");
    }
    if (spec == null) {
      return;
    }
    if (spec.config != null && spec.config.name != null && !spec.config.name.isBlank()) {
      pod.getVolumes()
          .add(
              new VolumeBuilder()
                  .withName("metrics-config")
                  .withNewConfigMap()
                  .withName(spec.config.name.trim())
                  .endConfigMap()
                  .build());
      c.getVolumeMounts()
          .add(
              new VolumeMountBuilder()
                  .withName("metrics-config")
                  .withMountPath(METRICS_DIR + "/" + METRICS_FILE)
                  .withSubPath(METRICS_FILE)
                  .build());
      DaemonSets.setEnv(c, "DCGM_EXPORTER_COLLECTORS", METRICS_DIR + "/" + METRICS_FILE);
    }
    if (Boolean.TRUE.equals(spec.hostPID)) {
      pod.setHostPID(true);
    }
    if (Boolean.TRUE.equals(spec.enablePodLabels)) {
      DaemonSets.setEnv(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_LABELS", "true");
    }
    if (Boolean.TRUE.equals(spec.enablePodUID)) {
      DaemonSets.setEnv(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID", "true");
    }
    if (spec.hpcJobMapping != null && Boolean.TRUE.equals(spec.hpcJobMapping.enabled)) {
      String dir =
          spec.hpcJobMapping.directory == null
              ? "/var/lib/dcgm-exporter/job-mapping"
              : spec.hpcJobMapping.directory;
      DaemonSets.setEnv(c, "DCGM_HPC_JOB_MAPPING_DIR", dir);
    }
    if (spec.annotations != null && !spec.annotations.isEmpty()) {
      var meta = ds.getSpec().getTemplate().getMetadata();
      if (meta.getAnnotations() == null) {
        meta.setAnnotations(new LinkedHashMap<>());
      }
      meta.getAnnotations().putAll(spec.annotations);
    }
  }
}
