package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.ValidatorSpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.NodeLabelRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An operand rendered from its manifest folder: the manifests are loaded as typed objects and only
 * the fields the policy controls are changed; {@link Operands#renderAll} stamps ownership and the
 * hash afterwards. Subclasses name their policy section and main container and add what is specific
 * to them in {@link #customize}.
 */
public abstract class ManifestOperandModel implements OperandModel {
  private final String name;

  protected ManifestOperandModel(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  /** The operand's section of the policy, or null when absent. */
  protected abstract ComponentSpec component(ClusterPolicySpec spec);

  /** The field path of that section, e.g. "spec.devicePlugin". */
  protected abstract String path();

  /** Whether the operand runs when its section does not say (the original's Go default). */
  protected boolean enabledByDefault() {
    return true;
  }

  /** The container that gets the operand's image, resources, args and env. */
  protected abstract String mainContainer();

  /**
   * Whether the policy's {@code args} follow the manifest's (our own image: the manifest's args are
   * the subcommand) instead of replacing them (NVIDIA's images, as in the original).
   */
  protected boolean appendArgs() {
    return true;
  }

  /** Whether the operand's pods use the GPU through the nvidia RuntimeClass. */
  protected boolean usesRuntimeClass() {
    return false;
  }

  /** Whether the DaemonSet keeps its manifest update strategy (the driver stays OnDelete). */
  protected boolean fixedUpdateStrategy() {
    return false;
  }

  /** Whether a manifest object is rendered at all (e.g. a ServiceMonitor without its CRD). */
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    return true;
  }

  /** The operand's image reference. */
  protected String image(RenderContext ctx) {
    return ImageResolver.resolve(component(ctx.spec()), path(), ctx.config().image(name));
  }

  /** Operand-specific changes, after the common ones and before labels and the hash. */
  protected void customize(HasMetadata object, RenderContext ctx) {}

  @Override
  public boolean enabled(ClusterPolicy policy, ClusterFacts facts) {
    ComponentSpec c = component(RenderContext.of(policy, facts, null).spec());
    return c == null ? enabledByDefault() : c.isEnabled(enabledByDefault());
  }

  @Override
  public List<HasMetadata> render(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    RenderContext ctx = RenderContext.of(policy, facts, config);
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata object : Manifests.load(name)) {
      if (!keep(object, ctx)) {
        continue;
      }
      if (ManagedObjects.isNamespaced(object)) {
        object.getMetadata().setNamespace(ctx.namespace());
      }
      bindToNamespace(object, ctx.namespace());
      if (object instanceof DaemonSet ds) {
        transformDaemonSet(ds, ctx);
      }
      customize(object, ctx);
      if (object instanceof DaemonSet ds) {
        DaemonSets.applyLabelsAndAnnotations(ds, ctx.spec().daemonsets);
      }
      out.add(object);
    }
    return out;
  }

  private void transformDaemonSet(DaemonSet ds, RenderContext ctx) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    DaemonSets.applyCommon(ds, ctx.spec().daemonsets, fixedUpdateStrategy());
    var taint = NodeLabelRules.policyTaint(ctx.policy());
    if (taint != null) {
      DaemonSets.tolerate(pod, taint);
    }
    DaemonSets.rewriteHostPaths(pod, ctx.spec().hostPaths);

    ComponentSpec c = component(ctx.spec());
    Container main = DaemonSets.container(pod, mainContainer());
    main.setImage(image(ctx));
    main.setImagePullPolicy(ImageResolver.pullPolicy(c == null ? null : c.imagePullPolicy));
    Set<String> secrets = new LinkedHashSet<>();
    if (pod.getImagePullSecrets() != null) {
      pod.getImagePullSecrets().forEach(s -> secrets.add(s.getName()));
    }
    if (c != null && c.imagePullSecrets != null) {
      c.imagePullSecrets.stream().filter(s -> s != null && !s.isBlank()).forEach(secrets::add);
    }
    if (c != null && c.resources != null) {
      main.setResources(c.resources);
    }
    if (c != null && c.args != null && !c.args.isEmpty()) {
      List<String> args = new ArrayList<>();
      if (appendArgs() && main.getArgs() != null) {
        args.addAll(main.getArgs());
      }
      args.addAll(c.args);
      main.setArgs(args);
    }
    // The policy's env is merged before the operand's own settings (MIG strategy, CDI), which
    // follow from other policy fields and win, as in the original.
    if (c != null && c.env != null) {
      c.env.forEach(e -> DaemonSets.setEnv(main, e.name, e.value));
    }
    if (transformValidationInits(pod, ctx)) {
      ValidatorSpec v = ctx.spec().validator;
      if (v != null && v.imagePullSecrets != null) {
        v.imagePullSecrets.stream().filter(s -> s != null && !s.isBlank()).forEach(secrets::add);
      }
    }
    List<LocalObjectReference> refs = new ArrayList<>();
    secrets.forEach(s -> refs.add(new LocalObjectReference(s)));
    pod.setImagePullSecrets(refs.isEmpty() ? null : refs);
    // With the CDI NRI plugin there are no RuntimeClasses (pre-requisites is off): the plugin
    // injects devices for the default runtime.
    if (usesRuntimeClass()
        && !"docker".equals(ctx.facts().containerRuntime())
        && new PreRequisitesModel().enabled(ctx.policy(), ctx.facts())) {
      pod.setRuntimeClassName(ctx.runtimeClass());
    }
  }

  /**
   * Points every init container named {@code <component>-validation} at the validator image and
   * adds the policy's {@code spec.validator.<component>.env}. Returns whether there was one.
   */
  private boolean transformValidationInits(PodSpec pod, RenderContext ctx) {
    if (pod.getInitContainers() == null) {
      return false;
    }
    boolean any = false;
    ValidatorSpec v = ctx.spec().validator;
    String image = null;
    for (Container init : pod.getInitContainers()) {
      if (!init.getName().endsWith("-validation")) {
        continue;
      }
      if (image == null) {
        image =
            ImageResolver.resolve(v, "spec.validator", ctx.config().image("operator-validator"));
      }
      any = true;
      init.setImage(image);
      init.setImagePullPolicy(ImageResolver.pullPolicy(v == null ? null : v.imagePullPolicy));
      String component =
          init.getName().substring(0, init.getName().length() - "-validation".length());
      ValidatorSpec.Component settings = validatorComponent(v, component);
      if (settings != null && settings.env != null) {
        settings.env.forEach(e -> DaemonSets.setEnv(init, e.name, e.value));
      }
    }
    return any;
  }

  private static ValidatorSpec.Component validatorComponent(ValidatorSpec v, String component) {
    if (v == null) {
      return null;
    }
    return switch (component) {
      case "driver" -> v.driver;
      case "toolkit" -> v.toolkit;
      case "cuda" -> v.cuda;
      case "plugin" -> v.plugin;
      case "vfio-pci" -> v.vfioPCI;
      case "vgpu-manager" -> v.vgpuManager;
      case "vgpu-devices" -> v.vgpuDevices;
      default -> null;
    };
  }

  private static void bindToNamespace(HasMetadata object, String namespace) {
    List<Subject> subjects = null;
    if (object instanceof RoleBinding rb) {
      subjects = rb.getSubjects();
    } else if (object instanceof ClusterRoleBinding crb) {
      subjects = crb.getSubjects();
    }
    if (subjects != null) {
      subjects.stream()
          .filter(s -> "ServiceAccount".equals(s.getKind()))
          .forEach(s -> s.setNamespace(namespace));
    }
  }

  /** Env helper for subclasses. */
  protected static void env(Container container, String name, String value) {
    DaemonSets.setEnv(container, name, value);
  }

  /** Env map helper for subclasses and tests. */
  protected static Map<String, String> envOf(Container container) {
    Map<String, String> out = new LinkedHashMap<>();
    if (container.getEnv() != null) {
      for (EnvVar e : container.getEnv()) {
        out.put(e.getName(), e.getValue());
      }
    }
    return out;
  }
}
