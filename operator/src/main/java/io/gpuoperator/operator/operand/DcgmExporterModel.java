package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DcgmExporterSpec;
import java.util.LinkedHashMap;

/**
 * The metrics exporter {@code nvidia-dcgm-exporter}, its Service and, when the Prometheus
 * Operator's CRDs exist and {@code dcgmExporter.serviceMonitor.enabled}, its ServiceMonitor and the
 * GPU alerts (PrometheusRule {@code nvidia-dcgm-exporter-alerts}). NVIDIA's image runs as under the
 * original (its entrypoint, {@code DCGM_EXPORTER_*} env); this project's image runs {@code
 * gpu-operator exporter} with the same env, and its built-in field list unless {@code
 * dcgmExporter.config} names a ConfigMap (NVIDIA's image carries {@code dcp-metrics-included.csv},
 * ours does not).
 */
public final class DcgmExporterModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-dcgm-exporter";
  static final String METRICS_DIR = "/etc/dcgm-exporter";
  static final String METRICS_FILE = "dcgm-metrics.csv";
  static final String READ_PODS = "nvidia-dcgm-exporter-read-pods";
  static final String COLLECTORS_ENV = "DCGM_EXPORTER_COLLECTORS";

  /** The subcommand our image runs. */
  static final String AGENT = "exporter";

  public DcgmExporterModel() {
    super(OperandNames.DCGM_EXPORTER);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.dcgmExporter;
  }

  @Override
  protected String path() {
    return "spec.dcgmExporter";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  @Override
  protected boolean appendArgs() {
    return false;
  }

  @Override
  protected boolean usesRuntimeClass() {
    return true;
  }

  @Override
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    DcgmExporterSpec spec = ctx.spec().dcgmExporter;
    if (object.getMetadata().getName().equals(READ_PODS)) {
      // Reading pod labels and UIDs needs access to pods, granted only when asked for.
      return spec != null
          && (Boolean.TRUE.equals(spec.enablePodLabels) || Boolean.TRUE.equals(spec.enablePodUID));
    }
    if (!ServiceMonitors.is(object)
        && !io.gpuoperator.operator.reconciler.Kinds.PROMETHEUS_RULE.equals(object.getKind())) {
      return true;
    }
    return ctx.facts().serviceMonitorCrd()
        && spec != null
        && spec.serviceMonitor != null
        && Boolean.TRUE.equals(spec.serviceMonitor.enabled);
  }

  /** This project's image without its tag, e.g. {@code ghcr.io/.../gpu-operator}. */
  static String projectRepository() {
    String image = io.gpuoperator.api.OperandImages.projectImage();
    int colon = image.lastIndexOf(':');
    return colon > image.lastIndexOf('/') ? image.substring(0, colon) : image;
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
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
    boolean ours = c.getImage() != null && c.getImage().startsWith(projectRepository() + ":");
    if (ours) {
      c.setArgs(new java.util.ArrayList<>(java.util.List.of(AGENT)));
      // Our image has no dcp-metrics-included.csv: the exporter's built-in list stands in for it.
      c.getEnv().removeIf(e -> COLLECTORS_ENV.equals(e.getName()));
    }
    if (new DcgmModel().enabled(ctx.policy(), ctx.facts())) {
      // Use the standalone host engine instead of the embedded one.
      env(c, "DCGM_REMOTE_HOSTENGINE_INFO", "nvidia-dcgm:5555");
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
      env(c, COLLECTORS_ENV, METRICS_DIR + "/" + METRICS_FILE);
    }
    if (Boolean.TRUE.equals(spec.hostPID)) {
      pod.setHostPID(true);
    }
    if (Boolean.TRUE.equals(spec.enablePodLabels)) {
      env(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_LABELS", "true");
    }
    if (Boolean.TRUE.equals(spec.enablePodUID)) {
      env(c, "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID", "true");
    }
    if (spec.hpcJobMapping != null && Boolean.TRUE.equals(spec.hpcJobMapping.enabled)) {
      String dir =
          spec.hpcJobMapping.directory == null
              ? "/var/lib/dcgm-exporter/job-mapping"
              : spec.hpcJobMapping.directory;
      env(c, "DCGM_HPC_JOB_MAPPING_DIR", dir);
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
