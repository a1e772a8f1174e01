package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
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
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.ImageRules;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The NVIDIA driver DaemonSet {@code nvidia-driver-daemonset} (NVIDIA's driver image, OnDelete
 * updates driven by the upgrade controller) with the k8s-driver-manager init container.
 */
public final class DriverTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-driver-ctr";
  static final String MANAGER_CONTAINER = "k8s-driver-manager";
  static final String PEERMEM = "nvidia-peermem-ctr";
  static final String NVIDIA_FS = "nvidia-fs-ctr";
  static final String GDRCOPY = "nvidia-gdrcopy-ctr";
  static final String PRECOMPILED_LABEL = "nvidia.com/precompiled";
  static final String DRIVER_CONFIG_DIGEST = "DRIVER_CONFIG_DIGEST";
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  /**
   * Whether the ClusterPolicy deploys the driver operand: unless the driver is disabled. With
   * {@code useNvidiaDriverCRD} the NVIDIADriver resources run the driver DaemonSets; the policy
   * keeps the driver's service account and RBAC, which theirs use.
   */
  static boolean enabled(ClusterPolicySpec spec) {
    DriverSpec d = spec.driver;
    return d == null || d.isEnabled(true);
  }

  /** Whether NVIDIADriver resources run the driver ({@code driver.useNvidiaDriverCRD}). */
  public static boolean byNvidiaDriverResources(ClusterPolicy policy) {
    return byNvidiaDriverResources(RenderContext.specOf(policy));
  }

  private static boolean byNvidiaDriverResources(ClusterPolicySpec spec) {
    DriverSpec d = spec.driver;
    return d != null && d.isEnabled(true) && Boolean.TRUE.equals(d.useNvidiaDriverCRD);
  }

  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    return !(object instanceof DaemonSet) || !byNvidiaDriverResources(ctx.spec());
  }

  /**
   * {@code repo/image:<version>-<osTag>} when the OS of the GPU nodes is known; a digest or a
   * verbatim image is used as given.
   */
  static String image(RenderContext ctx) {
    String suffix = ctx.facts().osTag() == null ? null : "-" + ctx.facts().osTag();
    ImageResolver.Parts parts = ImageResolver.parts(ctx.spec().driver, Section.DRIVER.path());
    if (parts != null) {
      return parts.verbatim() ? parts.image() : parts.reference(suffix);
    }
    String fallback = ImageResolver.resolve(null, Section.DRIVER.path(), defaultImage(ctx));
    boolean tagged =
        !fallback.contains("@") && fallback.lastIndexOf(':') > fallback.lastIndexOf('/');
    return tagged && suffix != null ? fallback + suffix : fallback;
  }

  private static String defaultImage(RenderContext ctx) {
    return ctx.defaultImage(Section.DRIVER);
  }

  /** The manager's image rules are checked wherever the driver is deployed. */
  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    return ImageRules.check(Section.DRIVER_MANAGER.of(spec), Section.DRIVER_MANAGER.path());
  }

  /**
   * With {@code usePrecompiled}, one DaemonSet per kernel of the GPU nodes, as in the original:
   * {@code nvidia-driver-daemonset-<kernel>-<os>}, image tag {@code <version>-<kernel>-<os>},
   * selected by the node's full kernel version (without known kernels there is nothing to run).
   * Then each DaemonSet's {@code DRIVER_CONFIG_DIGEST}, computed from its final pod spec.
   */
  @Override
  public List<HasMetadata> finish(List<HasMetadata> objects, RenderContext ctx) {
    if (DriverToolkitModel.enabled(ctx)) {
      return perRhcosVersion(objects, ctx);
    }
    List<String> tags = ctx.facts().osTags();
    if (tags.size() > 1) {
      return perOs(objects, ctx, tags);
    }
    return perKernel(objects, ctx);
  }

  /**
   * GPU nodes of several OSes get one driver DaemonSet per OS, each rendered for that OS alone
   * (image tags of the driver and its sidecars, package repository folders, and its own nodes'
   * kernels when precompiled), named {@code <name>-<os>} (the precompiled ones carry the OS
   * already) and selecting its nodes by {@link NodeSystem#osSelector()}. Nodes whose OS is unknown
   * then get no driver until NFD labels them. The other objects (RBAC) are rendered once.
   */
  private static List<HasMetadata> perOs(
      List<HasMetadata> objects, RenderContext ctx, List<String> tags) {
    boolean precompiled =
        ctx.spec().driver != null && Boolean.TRUE.equals(ctx.spec().driver.usePrecompiled);
    List<HasMetadata> out = new ArrayList<>();
    objects.stream().filter(o -> !(o instanceof DaemonSet)).forEach(out::add);
    Operand driver = Operands.byName(OperandNames.DRIVER);
    for (String tag : tags) {
      ClusterFacts pool = ctx.facts().forOs(tag);
      Map<String, String> selector = pool.systems().get(0).osSelector();
      for (HasMetadata object : ManifestRenderer.render(driver, ctx.with(pool))) {
        if (object instanceof DaemonSet ds) {
          if (!precompiled) {
            String name = ds.getMetadata().getName() + "-" + tag;
            ds.getMetadata().setName(name);
            ds.getSpec().getSelector().getMatchLabels().put(Labels.APP, name);
            ds.getSpec().getTemplate().getMetadata().getLabels().put(Labels.APP, name);
          }
          ds.getSpec().getTemplate().getSpec().getNodeSelector().putAll(selector);
          out.add(ds);
        }
      }
    }
    return out;
  }

  /**
   * On OpenShift with the Driver Toolkit: one DaemonSet per RHCOS version of the GPU nodes ({@link
   * DriverToolkitModel}), each with its own digest; the other objects once.
   */
  private static List<HasMetadata> perRhcosVersion(List<HasMetadata> objects, RenderContext ctx) {
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata object : objects) {
      if (!(object instanceof DaemonSet ds)) {
        out.add(object);
        continue;
      }
      for (DaemonSet copy : DriverToolkitModel.perVersion(ds, ctx)) {
        digest(copy.getSpec().getTemplate().getSpec());
        out.add(copy);
      }
    }
    return out;
  }

  private static List<HasMetadata> perKernel(List<HasMetadata> objects, RenderContext ctx) {
    DriverSpec d = ctx.spec().driver;
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata object : objects) {
      if (!(object instanceof DaemonSet ds)) {
        out.add(object);
        continue;
      }
      if (d == null || !Boolean.TRUE.equals(d.usePrecompiled)) {
        digest(ds.getSpec().getTemplate().getSpec());
        out.add(ds);
        continue;
      }
      for (String kernel : ctx.facts().kernelVersions()) {
        DaemonSet copy = KUBE.clone(ds);
        String os = ctx.facts().osTag() == null ? "" : "-" + ctx.facts().osTag();
        copy.getMetadata().setName(ds.getMetadata().getName() + "-" + sanitize(kernel) + os);
        PodSpec pod = copy.getSpec().getTemplate().getSpec();
        pod.getNodeSelector().put(Labels.NFD_KERNEL_FULL, kernel);
        Container driver = DaemonSets.container(pod, CONTAINER);
        driver.setImage(precompiledImage(ctx, kernel));
        // The peermem sidecar runs the driver image too.
        pod.getContainers().stream()
            .filter(c -> c.getName().equals(PEERMEM))
            .forEach(c -> c.setImage(driver.getImage()));
        digest(pod);
        out.add(copy);
      }
    }
    return out;
  }

  private static String precompiledImage(RenderContext ctx, String kernel) {
    String suffix = "-" + kernel + (ctx.facts().osTag() == null ? "" : "-" + ctx.facts().osTag());
    ImageResolver.Parts parts = ImageResolver.parts(ctx.spec().driver, Section.DRIVER.path());
    if (parts != null) {
      return parts.verbatim() ? parts.image() : parts.reference(suffix);
    }
    return ImageResolver.resolve(null, Section.DRIVER.path(), defaultImage(ctx)) + suffix;
  }

  /**
   * A kernel version as the original puts it into DaemonSet names: architecture suffixes dropped,
   * {@code _} as {@code .}, no trailing dot, lower case.
   */
  static String sanitize(String kernel) {
    String out = kernel;
    for (String arch : List.of("x86_64_64k", "aarch64_64k", "x86_64", "aarch64")) {
      out = out.replace(arch, "");
    }
    out = out.replace('_', '.');
    if (out.endsWith(".")) {
      out = out.substring(0, out.length() - 1);
    }
    return out.toLowerCase(Locale.ROOT);
  }

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container driver, RenderContext ctx) {
    DriverSpec d = ctx.spec().driver == null ? new DriverSpec() : ctx.spec().driver;
    boolean precompiled = Boolean.TRUE.equals(d.usePrecompiled);
    boolean rdma = d.rdma != null && Boolean.TRUE.equals(d.rdma.enabled);
    boolean hostMofed = rdma && Boolean.TRUE.equals(d.rdma.useHostMofed);
    boolean gds = Section.GDS.enabled(ctx.spec());
    boolean gdrcopy = Section.GDRCOPY.enabled(ctx.spec());
    driver.setImage(image(ctx));

    Container manager = DaemonSets.container(pod, MANAGER_CONTAINER);
    ComponentSpec m = d.manager;
    manager.setImage(ctx.image(Section.DRIVER_MANAGER));
    String pull = RenderContext.pullPolicyIfSet(m);
    if (pull != null) {
      manager.setImagePullPolicy(pull);
    }
    if (d.resources != null) {
      manager.setResources(d.resources);
    }
    DaemonSets.addPullSecrets(pod, m);
    if (rdma) {
      DaemonSets.setEnv(manager, "GPU_DIRECT_RDMA_ENABLED", "true");
    }
    if (hostMofed) {
      DaemonSets.setEnv(manager, "USE_HOST_MOFED", "true");
    }
    DaemonSets.mergeEnv(manager, m);

    String moduleType =
        d.kernelModuleType == null ? "auto" : d.kernelModuleType.name().toLowerCase(Locale.ROOT);
    DaemonSets.setEnv(driver, "KERNEL_MODULE_TYPE", moduleType);
    if (d.kernelModuleType == DriverSpec.KernelModuleType.OPEN) {
      DaemonSets.setEnv(driver, "OPEN_KERNEL_MODULES_ENABLED", "true");
    }
    if (gdrcopy) {
      DaemonSets.setEnv(driver, "GDRCOPY_ENABLED", "true");
    }
    if (gds) {
      DaemonSets.setEnv(driver, "GDS_ENABLED", "true");
    }
    if (rdma) {
      DaemonSets.setEnv(driver, "GPU_DIRECT_RDMA_ENABLED", "true");
    }
    if (hostMofed) {
      DaemonSets.setEnv(driver, "USE_HOST_MOFED", "true");
    }
    DaemonSets.mergeEnv(driver, d);
    if (!precompiled && !RenderContext.blank(d.secretEnv)) {
      driver.setEnvFrom(
          new ArrayList<>(
              List.of(
                  new EnvFromSourceBuilder().withNewSecretRef(d.secretEnv.trim(), false).build())));
    }
    probe(driver.getStartupProbe(), d.startupProbe);
    if (precompiled) {
      // Marks the per-kernel DaemonSets, as the original does.
      ds.getMetadata().getLabels().put(PRECOMPILED_LABEL, "true");
      ds.getSpec().getTemplate().getMetadata().getLabels().put(PRECOMPILED_LABEL, "true");
    }
    DriverConfigMounts.apply(pod, driver, d, ctx);
    sidecars(pod, driver, ctx, d, rdma, hostMofed, gds, gdrcopy);
    if (!DriverToolkitModel.enabled(ctx)) {
      DriverToolkitModel.remove(pod);
    }
  }

  /** The peermem, nvidia-fs and gdrcopy sidecars are kept only when their feature is on. */
  private static void sidecars(
      PodSpec pod,
      Container driver,
      RenderContext ctx,
      DriverSpec d,
      boolean rdma,
      boolean hostMofed,
      boolean gds,
      boolean gdrcopy) {
    if (rdma) {
      Container peermem = DaemonSets.container(pod, PEERMEM);
      peermem.setImage(driver.getImage());
      String pull = RenderContext.pullPolicyIfSet(d);
      if (pull != null) {
        peermem.setImagePullPolicy(pull);
      }
      if (hostMofed) {
        DaemonSets.setEnv(peermem, "USE_HOST_MOFED", "true");
        DaemonSets.volume(pod, "mlnx-ofed-usr-src").getHostPath().setPath("/usr/src");
      }
      DriverConfigMounts.kernelModuleConfig(pod, peermem, d, ctx, false);
    } else {
      DaemonSets.remove(pod, PEERMEM);
    }
    storageSidecar(pod, ctx, d, gds, NVIDIA_FS, Section.GDS);
    storageSidecar(pod, ctx, d, gdrcopy, GDRCOPY, Section.GDRCOPY);
  }

  private static void storageSidecar(
      PodSpec pod, RenderContext ctx, DriverSpec d, boolean on, String name, Section section) {
    if (!on) {
      DaemonSets.remove(pod, name);
      return;
    }
    Container c = DaemonSets.container(pod, name);
    ComponentSpec spec = section.of(ctx.spec());
    c.setImage(withOsTag(ctx.image(section), ctx));
    String pull = RenderContext.pullPolicyIfSet(spec);
    if (pull != null) {
      c.setImagePullPolicy(pull);
    }
    DaemonSets.addPullSecrets(pod, spec);
    DaemonSets.mergeEnv(c, spec);
    DriverConfigMounts.repoAndCerts(pod, c, d, ctx, false);
    if (!RenderContext.blank(d.secretEnv)) {
      c.setEnvFrom(
          new ArrayList<>(
              List.of(
                  new EnvFromSourceBuilder().withNewSecretRef(d.secretEnv.trim(), false).build())));
    }
  }

  /** {@code <image>-<osTag>} unless the image is a digest or the OS is unknown. */
  static String withOsTag(String image, RenderContext ctx) {
    String tag = ctx.facts().osTag();
    if (tag == null || image.contains("sha256:")) {
      return image;
    }
    return image + "-" + tag;
  }

  /**
   * The original's {@code DRIVER_CONFIG_DIGEST}: a stable digest of everything that decides what
   * the driver installs (images, commands, literal env, mounts, volumes), set on the driver manager
   * and the driver container, so both can skip a reinstall when nothing changed. Not the original's
   * bytes (it hashes a Go value dump), but the same inputs and the same meaning.
   */
  static void digest(PodSpec pod) {
    java.util.TreeMap<String, Object> in = new java.util.TreeMap<>();
    Container manager = DaemonSets.find(pod, MANAGER_CONTAINER);
    Container driver = DaemonSets.container(pod, CONTAINER);
    if (manager != null) {
      in.put("managerImage", manager.getImage());
      in.put("managerEnv", literalEnv(manager));
    }
    in.put("driverImage", driver.getImage());
    in.put("driverCommand", driver.getCommand());
    in.put("driverArgs", driver.getArgs());
    in.put("driverEnv", literalEnv(driver));
    if (driver.getEnvFrom() != null) {
      in.put(
          "driverEnvFrom",
          driver.getEnvFrom().stream()
              .map(e -> e.getSecretRef() == null ? "" : e.getSecretRef().getName())
              .toList());
    }
    java.util.TreeSet<String> mounts = new java.util.TreeSet<>();
    driver
        .getVolumeMounts()
        .forEach(
            v ->
                mounts.add(
                    v.getName()
                        + "|"
                        + v.getMountPath()
                        + "|"
                        + v.getSubPath()
                        + "|"
                        + v.getReadOnly()));
    in.put("driverMounts", mounts);
    for (String sidecar : List.of(PEERMEM, NVIDIA_FS, GDRCOPY)) {
      Container c = DaemonSets.find(pod, sidecar);
      if (c != null) {
        in.put(sidecar, c.getImage() + "|" + literalEnv(c));
      }
    }
    java.util.TreeSet<String> volumes = new java.util.TreeSet<>();
    pod.getVolumes()
        .forEach(
            v ->
                volumes.add(
                    v.getName()
                        + "|"
                        + (v.getConfigMap() == null ? "" : v.getConfigMap().getName())
                        + "|"
                        + (v.getSecret() == null ? "" : v.getSecret().getSecretName())
                        + "|"
                        + (v.getHostPath() == null ? "" : v.getHostPath().getPath())));
    in.put("volumes", volumes);
    String value = Integer.toUnsignedString(fnv32a(in.toString()));
    if (manager != null) {
      DaemonSets.setEnv(manager, DRIVER_CONFIG_DIGEST, value);
    }
    DaemonSets.setEnv(driver, DRIVER_CONFIG_DIGEST, value);
  }

  private static java.util.TreeMap<String, String> literalEnv(Container c) {
    java.util.TreeMap<String, String> out = new java.util.TreeMap<>();
    if (c.getEnv() != null) {
      c.getEnv().stream()
          .filter(e -> e.getValueFrom() == null && !e.getName().equals(DRIVER_CONFIG_DIGEST))
          .forEach(e -> out.put(e.getName(), e.getValue() == null ? "" : e.getValue()));
    }
    return out;
  }

  /** FNV-1a, 32 bit, as the original hashes. */
  static int fnv32a(String s) {
    int h = 0x811c9dc5;
    for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x01000193;
    }
    return h;
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
