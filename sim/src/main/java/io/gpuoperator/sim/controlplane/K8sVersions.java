package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;

/**
 * The control plane's pinned versions. They live in one file, {@code scripts/k8s-versions.env},
 * which {@code scripts/k8s-binaries.sh} sources and the build copies onto this module's classpath,
 * so the binaries the script builds and the cache directory this side looks in never disagree.
 */
public final class K8sVersions {
  private static final String RESOURCE = "/k8s-versions.env";
  private static final Properties PINNED = load();

  /** The Kubernetes release of every control-plane binary, e.g. "v1.36.3". */
  public static final String KUBERNETES = PINNED.getProperty("K8S_VERSION");

  /** The etcd release, e.g. "v3.6.16". */
  public static final String ETCD = PINNED.getProperty("ETCD_VERSION");

  /**
   * The version of NVIDIA's gpu-operator Go module the tests compare against (its chart's values,
   * its operator), a pseudo-version because the module proxy serves no tag of it.
   */
  public static final String ORIGINAL_OPERATOR = PINNED.getProperty("ORIGINAL_OPERATOR_VERSION");

  /**
   * The version of the {@code github.com/operator-framework/api} Go module whose {@code crds/}
   * (OLM's ClusterServiceVersion and the rest) the OLM bundle's test installs.
   */
  public static final String OLM_API = PINNED.getProperty("OLM_API_VERSION");

  private K8sVersions() {}

  /** The test-dependency cache, {@code $XDG_CACHE_HOME/gpu-operator} or ~/.cache/gpu-operator. */
  public static Path cacheRoot() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path cache =
        xdg != null && !xdg.isBlank()
            ? Paths.get(xdg)
            : Paths.get(System.getProperty("user.home"), ".cache");
    return cache.resolve("gpu-operator");
  }

  /** Where {@code scripts/k8s-binaries.sh} caches the binaries of these versions by default. */
  public static Path cacheBinDir() {
    return cacheRoot().resolve("k8s/" + KUBERNETES + "-etcd" + ETCD + "/bin");
  }

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = K8sVersions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath: rebuild sim");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String key :
        new String[] {
          "K8S_VERSION", "ETCD_VERSION", "ORIGINAL_OPERATOR_VERSION", "OLM_API_VERSION"
        }) {
      if (p.getProperty(key, "").isBlank()) {
        throw new IllegalStateException(RESOURCE + " lacks " + key);
      }
    }
    return p;
  }
}
