package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.cluster.NodeFacts.Family;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The driver container's conditional mounts, in the original's order: vGPU licensing, virtual
 * topology, kernel module parameters (one file per ConfigMap key under {@code /drivers}), the
 * host's kernel modules for precompiled SUSE drivers, package repositories and CA certificates (one
 * file per key where the image's OS looks for them) and the host's RHEL or SUSE entitlements.
 */
final class DriverConfigMounts {
  private DriverConfigMounts() {}

  static void apply(PodSpec pod, Container driver, DriverSpec d, RenderContext ctx) {
    boolean precompiled = Boolean.TRUE.equals(d.usePrecompiled);
    String os = osId(ctx.facts().osTag());
    licensing(pod, driver, d);
    if (d.virtualTopology != null && !RenderContext.blank(d.virtualTopology.config)) {
      String file = "nvidia-topologyd.conf";
      mount(driver, "topology-config", "/etc/nvidia/" + file, file);
      configMapVolume(pod, "topology-config", d.virtualTopology.config.trim(), List.of(file));
    }
    kernelModuleConfig(pod, driver, d, ctx, true);
    if (precompiled && ("sles".equals(os) || "sl-micro".equals(os))) {
      mount(driver, "lib-modules", "/run/host/lib/modules", null);
      hostPath(pod, "lib-modules", "/lib/modules", "Directory");
    }
    if (precompiled) {
      return;
    }
    repoAndCerts(pod, driver, d, ctx, true);
    boolean repoConfig = d.repoConfig != null && !RenderContext.blank(d.repoConfig.configMapName);
    if ("rhel".equals(os) && !"crio".equals(ctx.runtime()) && !repoConfig) {
      // RHEL hosts' subscription, so the driver container can install kernel packages.
      mount(driver, "subscription-config-0", "/run/secrets/etc-pki-entitlement", null);
      mount(driver, "subscription-config-1", "/run/secrets/redhat.repo", null);
      mount(driver, "subscription-config-2", "/run/secrets/rhsm", null);
      hostPath(pod, "subscription-config-0", "/etc/pki/entitlement", "Directory");
      hostPath(pod, "subscription-config-1", "/etc/yum.repos.d/redhat.repo", "File");
      hostPath(pod, "subscription-config-2", "/etc/rhsm", "Directory");
    } else if ("sles".equals(os) || "sl-micro".equals(os)) {
      mount(driver, "subscription-config-0", "/etc/SUSEConnect", null);
      mount(driver, "subscription-config-1", "/etc/zypp/credentials.d", null);
      hostPath(pod, "subscription-config-0", "/etc/SUSEConnect", "FileOrCreate");
      hostPath(pod, "subscription-config-1", "/etc/zypp/credentials.d", "Directory");
    }
  }

  private static void licensing(PodSpec pod, Container driver, DriverSpec d) {
    var l = d.licensingConfig;
    if (l == null) {
      return;
    }
    boolean secret = !RenderContext.blank(l.secretName);
    String name =
        secret
            ? l.secretName.trim()
            : RenderContext.blank(l.configMapName) ? null : l.configMapName.trim();
    if (name == null) {
      return;
    }
    boolean nls = l.nlsEnabled == null || l.nlsEnabled;
    List<String> files = new ArrayList<>(List.of("gridd.conf"));
    mount(driver, "licensing-config", "/drivers/gridd.conf", "gridd.conf");
    if (nls) {
      files.add("client_configuration_token.tok");
      mount(
          driver,
          "licensing-config",
          "/drivers/ClientConfigToken/client_configuration_token.tok",
          "client_configuration_token.tok");
    }
    VolumeBuilder v = new VolumeBuilder().withName("licensing-config");
    if (secret) {
      v.withNewSecret().withSecretName(name).withItems(items(files)).endSecret();
    } else {
      v.withNewConfigMap().withName(name).withItems(items(files)).endConfigMap();
    }
    DaemonSets.addVolume(pod, v.build());
  }

  /** {@code driver.kernelModuleConfig}: each key becomes {@code /drivers/<key>}. */
  static void kernelModuleConfig(
      PodSpec pod, Container c, DriverSpec d, RenderContext ctx, boolean addVolume) {
    if (d.kernelModuleConfig == null || RenderContext.blank(d.kernelModuleConfig.name)) {
      return;
    }
    perKey(
        pod,
        c,
        d.kernelModuleConfig.name.trim(),
        "/drivers",
        "spec.driver.kernelModuleConfig.name",
        ctx,
        addVolume);
  }

  /** Where each package family's driver image looks for package repository files. */
  private static final Map<Family, String> REPO_DIRS =
      Map.of(
          Family.RHEL, "/etc/yum.repos.d",
          Family.DEBIAN, "/etc/apt/sources.list.d",
          Family.SLES, "/etc/zypp/repos.d");

  /** Where each package family's driver image looks for extra CA certificates. */
  private static final Map<Family, String> CERT_DIRS =
      Map.of(
          Family.RHEL, "/etc/pki/ca-trust/extracted/pem",
          Family.DEBIAN, "/usr/local/share/ca-certificates",
          Family.SLES, "/etc/pki/trust/anchors");

  /** Package repositories and CA certificates where the driver image's OS looks for them. */
  static void repoAndCerts(
      PodSpec pod, Container c, DriverSpec d, RenderContext ctx, boolean addVolume) {
    String os = osId(ctx.facts().osTag());
    if (d.repoConfig != null && !RenderContext.blank(d.repoConfig.configMapName)) {
      String path = "spec.driver.repoConfig.configMapName";
      String dir = REPO_DIRS.get(family(os, path));
      perKey(pod, c, d.repoConfig.configMapName.trim(), dir, path, ctx, addVolume);
    }
    if (d.certConfig != null && !RenderContext.blank(d.certConfig.name)) {
      String path = "spec.driver.certConfig.name";
      String dir = CERT_DIRS.get(family(os, path));
      perKey(pod, c, d.certConfig.name.trim(), dir, path, ctx, addVolume);
    }
  }

  /** The OS id of an OS tag ("rhel9" → "rhel", "sl-micro6.0" → "sl-micro"), or null. */
  static String osId(String osTag) {
    return NodeFacts.osId(osTag);
  }

  /** The package family from the one OS table; an OS the table does not know is refused. */
  private static Family family(String os, String field) {
    NodeFacts.Os known = os == null ? null : NodeFacts.known(os).orElse(null);
    if (known != null) {
      return known.family();
    }
    throw new PolicyValidationException(
        List.of(
            new Violation(
                field,
                "the GPU nodes' OS "
                    + (os == null ? "is unknown" : "'" + os + "' is not supported")
                    + ": repository and certificate files can be placed for "
                    + String.join(
                        ", ", NodeFacts.OS_TABLE.stream().map(NodeFacts.Os::id).toList()))));
  }

  /** One read-only file mount per key of the ConfigMap, as the original does. */
  static void perKey(
      PodSpec pod,
      Container c,
      String configMap,
      String dir,
      String field,
      RenderContext ctx,
      boolean addVolume) {
    List<String> keys = ctx.facts().configMapKeys().get(configMap);
    if (keys == null) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  field,
                  "ConfigMap '"
                      + configMap
                      + "' not found in namespace "
                      + ctx.namespace()
                      + " (the driver mounts each of its keys)")));
    }
    for (String key : keys) {
      mount(c, configMap, dir + "/" + key, key);
    }
    if (addVolume) {
      configMapVolume(pod, configMap, configMap, keys);
    }
  }

  private static void configMapVolume(PodSpec pod, String volume, String name, List<String> keys) {
    DaemonSets.addVolume(
        pod,
        new VolumeBuilder()
            .withName(volume)
            .withNewConfigMap()
            .withName(name)
            .withItems(items(keys))
            .endConfigMap()
            .build());
  }

  private static void hostPath(PodSpec pod, String volume, String path, String type) {
    DaemonSets.addVolume(
        pod,
        new VolumeBuilder()
            .withName(volume)
            .withNewHostPath()
            .withPath(path)
            .withType(type)
            .endHostPath()
            .build());
  }

  private static List<KeyToPath> items(List<String> keys) {
    return keys.stream().map(k -> new KeyToPathBuilder().withKey(k).withPath(k).build()).toList();
  }

  private static void mount(Container c, String volume, String path, String subPath) {
    DaemonSets.mount(
        c,
        new VolumeMountBuilder()
            .withName(volume)
            .withMountPath(path)
            .withSubPath(subPath)
            .withReadOnly(true)
            .build());
  }
}
