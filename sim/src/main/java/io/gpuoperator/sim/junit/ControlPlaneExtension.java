package io.gpuoperator.sim.junit;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives {@code *IT} tests a real API server: one control plane (etcd, kube-apiserver and the
 * controller-manager's garbage collector) per test JVM, started on first use and stopped when the
 * JVM's tests are done. Test methods and constructors can take a {@link ControlPlane} or a {@link
 * KubernetesClient} (the shared admin client; do not close it). Isolate tests by namespace ({@link
 * #newNamespace}) or by deleting what they create.
 */
public class ControlPlaneExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(ControlPlaneExtension.class);
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  @Override
  public boolean supportsParameter(ParameterContext param, ExtensionContext ctx) {
    Class<?> type = param.getParameter().getType();
    return type == ControlPlane.class || type == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext param, ExtensionContext ctx) {
    ControlPlane cp = shared(ctx);
    return param.getParameter().getType() == ControlPlane.class ? cp : cp.client();
  }

  /** The JVM-wide control plane, started on first call. */
  public static ControlPlane shared(ExtensionContext ctx) {
    return ctx.getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent(Shared.class, k -> Shared.start(), Shared.class)
        .controlPlane;
  }

  /**
   * Creates a fresh namespace whose name starts with the prefix, ready for pods ({@link
   * #createNamespace}).
   */
  public static String newNamespace(KubernetesClient client, String prefix) {
    String name =
        (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-")
            + "-"
            + NAMESPACES.incrementAndGet());
    createNamespace(client, name, Map.of());
    return name;
  }

  /**
   * Creates the namespace with these labels (a pod-security level, say), and waits (up to 30 s) for
   * the controller-manager to give it its default ServiceAccount: until then the API server's
   * ServiceAccount admission refuses pods there ("serviceaccount \"default\" not found"). Pods get
   * bound tokens through the TokenRequest API; no token Secret is created any more.
   */
  public static void createNamespace(
      KubernetesClient client, String name, Map<String, String> labels) {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      var sa = client.serviceAccounts().inNamespace(name).withName("default").get();
      if (sa != null) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @SuppressWarnings("deprecation")
  private static final class Shared
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final ControlPlane controlPlane;

    private Shared(ControlPlane controlPlane) {
      this.controlPlane = controlPlane;
    }

    static Shared start() {
      try {
        ControlPlane cp = ControlPlane.builder().controllers(ControlPlane.GC_CONTROLLERS).start();
        org.slf4j.LoggerFactory.getLogger(ControlPlaneExtension.class)
            .info(
                "IT control plane: Kubernetes {} at {}",
                cp.client().getKubernetesVersion().getGitVersion(),
                cp.apiServerUrl());
        return new Shared(cp);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the control plane", e);
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot start the control plane: " + e.getMessage(), e);
      }
    }

    @Override
    public void close() {
      controlPlane.close();
    }
  }
}
