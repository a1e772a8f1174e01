package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.operator.cluster.NodeFacts;
import java.util.ArrayList;
import java.util.Locale;

/**
 * The driver's air-gapped and licensing settings as volumes: package repository files and CA
 * certificates where the driver image's OS looks for them, kernel module parameters, vGPU licensing
 * and topology. Each ConfigMap or Secret is mounted whole (its keys become files).
 */
final class DriverConfigMounts {
  private DriverConfigMounts() {}

  /** Package repository and CA directories per OS family of the driver image. */
  static void repoAndCerts(PodSpec pod, Container driver, DriverSpec d, String osTag) {
    String family = family(osTag);
    if (d.repoConfig != null && set(d.repoConfig.configMapName)) {
      String dir =
          switch (family) {
            case "rhel" -> "/etc/yum.repos.d";
            case "sles" -> "/etc/zypp/repos.d";
            default -> "/etc/apt/sources.list.d";
          };
      mountConfigMap(pod, driver, "repo-config", d.repoConfig.configMapName.trim(), dir, null);
    }
    if (d.certConfig != null && set(d.certConfig.name)) {
      String dir =
          switch (family) {
            case "rhel" -> "/etc/pki/ca-trust/extracted/pem";
            case "sles" -> "/etc/pki/trust/anchors";
            default -> "/usr/local/share/ca-certificates";
          };
      mountConfigMap(pod, driver, "cert-config", d.certConfig.name.trim(), dir, null);
    }
  }

  /** Kernel module parameters, vGPU licensing and virtual topology. */
  static void driverConfigs(PodSpec pod, Container driver, DriverSpec d) {
    if (d.kernelModuleConfig != null && set(d.kernelModuleConfig.name)) {
      mountConfigMap(
          pod, driver, "kernel-module-config", d.kernelModuleConfig.name.trim(), "/drivers", null);
    }
    if (d.licensingConfig != null) {
      var l = d.licensingConfig;
      boolean secret = set(l.secretName);
      String name =
          secret ? l.secretName.trim() : set(l.configMapName) ? l.configMapName.trim() : null;
      if (name != null) {
        VolumeBuilder v = new VolumeBuilder().withName("licensing-config");
        if (secret) {
          v.withNewSecret().withSecretName(name).endSecret();
        } else {
          v.withNewConfigMap().withName(name).endConfigMap();
        }
        pod.getVolumes().add(v.build());
        mount(driver, "licensing-config", "/drivers/gridd.conf", "gridd.conf");
        if (l.nlsEnabled == null || l.nlsEnabled) {
          mount(
              driver,
              "licensing-config",
              "/drivers/ClientConfigToken/client_configuration_token.tok",
              "client_configuration_token.tok");
        }
      }
    }
    if (d.virtualTopology != null && set(d.virtualTopology.config)) {
      mountConfigMap(
          pod,
          driver,
          "topology-config",
          d.virtualTopology.config.trim(),
          "/etc/nvidia/nvidia-topologyd.conf",
          "virtualTopology.conf");
    }
  }

  /** rhel, sles or debian (the default, also for an unknown OS), from the one OS table. */
  static String family(String osTag) {
    return NodeFacts.family(osTag).name().toLowerCase(Locale.ROOT);
  }

  private static void mountConfigMap(
      PodSpec pod, Container c, String volume, String configMap, String path, String subPath) {
    Volume v =
        new VolumeBuilder()
            .withName(volume)
            .withNewConfigMap()
            .withName(configMap)
            .endConfigMap()
            .build();
    pod.getVolumes().add(v);
    mount(c, volume, path, subPath);
  }

  private static void mount(Container c, String volume, String path, String subPath) {
    VolumeMount m =
        new VolumeMountBuilder()
            .withName(volume)
            .withMountPath(path)
            .withSubPath(subPath)
            .withReadOnly(true)
            .build();
    var mounts = c.getVolumeMounts() == null ? new ArrayList<VolumeMount>() : c.getVolumeMounts();
    mounts.add(m);
    c.setVolumeMounts(mounts);
  }

  private static boolean set(String s) {
    return s != null && !s.isBlank();
  }
}
