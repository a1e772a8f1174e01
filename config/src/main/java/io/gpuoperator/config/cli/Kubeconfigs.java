package io.gpuoperator.config.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Values;
import java.nio.file.Path;

/**
 * The cluster connection of every command: {@code --kubeconfig FILE}, or without it the usual
 * places (the in-cluster service account, then {@code $KUBECONFIG}, then {@code ~/.kube/config}). A
 * kubeconfig that cannot be read or used is bad input naming the file, never a stack trace.
 */
public final class Kubeconfigs {
  /** The flag; the environment variable is fabric8's own (a list of files, as kubectl reads). */
  public static final Setting<Path> KUBECONFIG =
      Setting.of("--kubeconfig", Parse::path)
          .label("FILE")
          .help(
              "Kubeconfig of the cluster. Without it: in-cluster, then $KUBECONFIG, then"
                  + " ~/.kube/config.");

  private Kubeconfigs() {}

  /**
   * A client configuration from the file, or from the usual places when it is null; {@code origin}
   * names where the file came from in messages ({@code --kubeconfig}).
   */
  public static Config load(Path file, String origin) {
    if (file == null) {
      try {
        return Config.autoConfigure(null);
      } catch (KubernetesClientException | IllegalArgumentException e) {
        throw new ConfigException(
            "kubeconfig ($KUBECONFIG or ~/.kube/config): not usable: " + problem(e));
      }
    }
    Document doc;
    try {
      doc = Documents.read(file);
    } catch (ConfigException e) {
      throw new ConfigException(origin + " " + e.getMessage(), e);
    }
    if (!doc.root().isObject()
        || !doc.root().path("clusters").isArray()
        || doc.root().path("clusters").isEmpty()) {
      throw new ConfigException(
          origin + " " + file + ": not a kubeconfig: expected a mapping with a list of clusters");
    }
    try {
      Config config = Config.fromKubeconfig(java.nio.file.Files.readString(file));
      if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
        throw new ConfigException(
            origin + " " + file + ": the current context names no cluster server");
      }
      return config;
    } catch (ConfigException e) {
      throw e;
    } catch (java.io.IOException | RuntimeException e) {
      throw new ConfigException(
          origin + " " + file + ": not a usable kubeconfig: " + problem(e), e);
    }
  }

  private static String problem(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? e.getMessage() : t.getMessage();
    return m == null ? "cannot be parsed" : Values.plain(m);
  }
}
