package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.ProbeSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeSystem;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.Labels;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The NVIDIA driver DaemonSet {@code nvidia-driver-daemonset} (NVIDIA's driver image, OnDelete
 * updates driven by the upgrade controller) with the k8s-driver-manager init container.
 */
public final class DriverModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-driver-ctr";
  static final String MANAGER_CONTAINER = "k8s-driver-manager";
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  public DriverModel() {
    super(OperandNames.DRIVER);
  }

  /**
   * Deployed unless the driver is disabled. With {@code useNvidiaDriverCRD} the NVIDIADriver
   * resources run the driver DaemonSets; the policy keeps the driver's service account and RBAC,
   * which theirs use.
   */
  @Override
  public boolean enabled(ClusterPolicy policy, ClusterFacts facts) {
    DriverSpec d = policy == null || policy.getSpec() == null ? null : policy.getSpec().driver;
    return d == null || d.isEnabled(true);
  }

  @Override
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    return !(object instanceof DaemonSet) || !byNvidiaDriverResources(ctx.policy());
  }

  /** Whether NVIDIADriver resources run the driver ({@code driver.useNvidiaDriverCRD}). */
  public static boolean byNvidiaDriverResources(ClusterPolicy policy) {
    DriverSpec d = policy == null || policy.getSpec() == null ? null : policy.getSpec().driver;
    return d != null && d.isEnabled(true) && Boolean.TRUE.equals(d.useNvidiaDriverCRD);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.driver;
  }

  @Override
  protected String path() {
    return "spec.driver";
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
  protected boolean fixedUpdateStrategy() {
    return true;
  }

  /**
   * {@code repo/image:<version>-<osTag>} when the OS of the GPU nodes is known; a digest or a
   * verbatim image is used as given.
   */
  @Override
  protected String image(RenderContext ctx) {
    String suffix = ctx.facts().osTag() == null ? null : "-" + ctx.facts().osTag();
    ImageResolver.Parts parts = ImageResolver.parts(ctx.spec().driver, path());
    if (parts != null) {
      return parts.verbatim() ? parts.image() : parts.reference(suffix);
    }
    String fallback = ImageResolver.resolve(null, path(), ctx.config().image(name()));
    boolean tagged =
        !fallback.contains("@") && fallback.lastIndexOf(':') > fallback.lastIndexOf('/');
    return tagged && suffix != null ? fallback + suffix : fallback;
  }

  /**
   * With {@code usePrecompiled}, one DaemonSet per kernel of the GPU nodes, as in the original:
   * {@code nvidia-driver-daemonset-<kernel>-<os>}, image tag {@code <version>-<kernel>-<os>},
   * selected by the node's full kernel version. Without known kernels there is nothing to run.
   */
  /**
   * GPU nodes of one OS (or of unknown OS) get the original's DaemonSet(s). GPU nodes of several
   * OSes get one driver DaemonSet per OS, each rendered for that OS (image tag, sidecar tags,
   * package repository folders, its own nodes' kernels when precompiled), named {@code <name>-<os>}
   * (the precompiled ones carry the OS already) and selecting its nodes by {@link
   * NodeSystem#osSelector()}. Nodes whose OS is unknown then get no driver until NFD labels them.
   */
  @Override
  public List<HasMetadata> render(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<String> tags = facts.osTags();
    if (tags.size() <= 1) {
      return renderForOs(policy, facts, config);
    }
    boolean precompiled = precompiled(policy);
    List<HasMetadata> out = new ArrayList<>();
    Set<String> shared = new HashSet<>();
    for (String tag : tags) {
      ClusterFacts pool = facts.forOs(tag);
      Map<String, String> selector = pool.systems().get(0).osSelector();
      for (HasMetadata object : renderForOs(policy, pool, config)) {
        if (!(object instanceof DaemonSet ds)) {
          if (shared.add(object.getKind() + "/" + object.getMetadata().getName())) {
            out.add(object);
          }
          continue;
        }
        if (!precompiled) {
          rename(ds, labelSafe(ds.getMetadata().getName() + "-" + tag));
        }
        ds.getSpec().getTemplate().getSpec().getNodeSelector().putAll(selector);
        ContentHash.annotate(ds);
        out.add(ds);
      }
    }
    return out;
  }

  private static boolean precompiled(ClusterPolicy policy) {
    DriverSpec d = policy == null || policy.getSpec() == null ? null : policy.getSpec().driver;
    return d != null && Boolean.TRUE.equals(d.usePrecompiled);
  }

  /** A DaemonSet's name, which doubles as its {@code app} label (selector and pods). */
  private static void rename(DaemonSet ds, String name) {
    ds.getMetadata().setName(name);
    ds.getSpec().getSelector().getMatchLabels().put(Labels.APP, name);
    ds.getSpec().getTemplate().getMetadata().getLabels().put(Labels.APP, name);
  }

  /** The DaemonSet(s) for one OS, each with its {@code DRIVER_CONFIG_DIGEST} and hash. */
  private List<HasMetadata> renderForOs(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<HasMetadata> out = perKernel(policy, facts, config);
    for (HasMetadata object : out) {
      if (object instanceof DaemonSet ds) {
        DriverConfigDigest.set(
            ds.getSpec().getTemplate().getSpec(), MANAGER_CONTAINER, CONTAINER, SIDECARS);
        ContentHash.annotate(ds);
      }
    }
    return out;
  }

  private static final List<String> SIDECARS =
      List.of("nvidia-peermem-ctr", "nvidia-fs-ctr", "nvidia-gdrcopy-ctr");

  private List<HasMetadata> perKernel(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<HasMetadata> objects = super.render(policy, facts, config);
    if (!precompiled(policy)) {
      return objects;
    }
    RenderContext ctx = RenderContext.of(policy, facts, config);
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata object : objects) {
      if (!(object instanceof DaemonSet ds)) {
        out.add(object);
        continue;
      }
      for (String kernel : facts.kernelVersions()) {
        DaemonSet copy = KUBE.clone(ds);
        String os = facts.osTag() == null ? "" : "-" + facts.osTag();
        rename(copy, labelSafe(ds.getMetadata().getName() + "-" + sanitize(kernel + os)));
        copy.getSpec()
            .getTemplate()
            .getSpec()
            .getNodeSelector()
            .put(Labels.NFD_KERNEL_FULL, kernel);
        Container driver = DaemonSets.container(copy.getSpec().getTemplate().getSpec(), CONTAINER);
        driver.setImage(precompiledImage(ctx, kernel));
        // The peermem sidecar runs the driver image too.
        copy.getSpec().getTemplate().getSpec().getContainers().stream()
            .filter(c -> c.getName().equals("nvidia-peermem-ctr"))
            .forEach(c -> c.setImage(driver.getImage()));
        ContentHash.annotate(copy);
        out.add(copy);
      }
    }
    return out;
  }

  private String precompiledImage(RenderContext ctx, String kernel) {
    String suffix = "-" + kernel + (ctx.facts().osTag() == null ? "" : "-" + ctx.facts().osTag());
    ImageResolver.Parts parts = ImageResolver.parts(ctx.spec().driver, path());
    if (parts != null) {
      return parts.verbatim() ? parts.image() : parts.reference(suffix);
    }
    return ImageResolver.resolve(null, path(), ctx.config().image(name())) + suffix;
  }

  /** The name doubles as the app label: at most 63 characters, kept unique by a hash suffix. */
  static String labelSafe(String name) {
    if (name.length() <= 63) {
      return name;
    }
    String hash = Integer.toHexString(name.hashCode());
    return name.substring(0, 62 - hash.length()).replaceAll("-+$", "") + "-" + hash;
  }

  /** A kernel and OS as a DNS label part: lower case, [a-z0-9-]. */
  static String sanitize(String s) {
    String out = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("-+", "-");
    return out.replaceAll("^-|-$", "");
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    DriverSpec d = ctx.spec().driver == null ? new DriverSpec() : ctx.spec().driver;
    var pod = ds.getSpec().getTemplate().getSpec();
    Container driver = DaemonSets.container(pod, CONTAINER);
    String moduleType =
        d.kernelModuleType == null ? "auto" : d.kernelModuleType.name().toLowerCase(Locale.ROOT);
    env(driver, "KERNEL_MODULE_TYPE", moduleType);
    boolean rdma = d.rdma != null && Boolean.TRUE.equals(d.rdma.enabled);
    if (rdma) {
      env(driver, "GPU_DIRECT_RDMA_ENABLED", "true");
      if (Boolean.TRUE.equals(d.rdma.useHostMofed)) {
        env(driver, "USE_HOST_MOFED", "true");
      }
    }
    Sidecars.add(pod, driver, ctx, d, rdma);
    if (Boolean.TRUE.equals(d.usePrecompiled)) {
      // Marks the per-kernel DaemonSets, as the original does.
      ds.getMetadata().getLabels().put("nvidia.com/precompiled", "true");
    }
    if (d.secretEnv != null && !d.secretEnv.isBlank()) {
      List<EnvFromSource> from = new ArrayList<>();
      from.add(new EnvFromSourceBuilder().withNewSecretRef(d.secretEnv.trim(), false).build());
      driver.setEnvFrom(from);
    }
    if (!Boolean.TRUE.equals(d.usePrecompiled)) {
      // Precompiled images need no package repositories (the original skips these too).
      DriverConfigMounts.repoAndCerts(pod, driver, d, ctx.facts().osTag());
    }
    DriverConfigMounts.driverConfigs(pod, driver, d);
    probe(driver.getStartupProbe(), d.startupProbe);
    probe(driver.getLivenessProbe(), d.livenessProbe);
    probe(driver.getReadinessProbe(), d.readinessProbe);

    Container manager = DaemonSets.container(pod, MANAGER_CONTAINER);
    ComponentSpec m = d.manager;
    manager.setImage(
        ImageResolver.resolve(m, "spec.driver.manager", ctx.config().image("driver-manager")));
    manager.setImagePullPolicy(ImageResolver.pullPolicy(m == null ? null : m.imagePullPolicy));
    if (m != null && m.env != null) {
      m.env.forEach(e -> env(manager, e.name, e.value));
    }
  }

  private static void probe(Probe probe, ProbeSpec spec) {
    if (probe == null || spec == null) {
      return;
    }
    if (spec.initialDelaySeconds != null) {
      probe.setInitialDelaySeconds(spec.initialDelaySeconds);
    }
    if (spec.timeoutSeconds != null) {
      probe.setTimeoutSeconds(spec.timeoutSeconds);
    }
    if (spec.periodSeconds != null) {
      probe.setPeriodSeconds(spec.periodSeconds);
    }
    if (spec.successThreshold != null) {
      probe.setSuccessThreshold(spec.successThreshold);
    }
    if (spec.failureThreshold != null) {
      probe.setFailureThreshold(spec.failureThreshold);
    }
  }
}
