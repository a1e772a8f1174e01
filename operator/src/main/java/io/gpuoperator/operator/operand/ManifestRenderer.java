package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ValidatorSpec;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.spec.Section;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Renders an {@link Operand} from its manifest folder: the manifests are loaded as typed objects
 * and only the fields the policy controls are changed, first by the transforms every operand gets
 * (namespace, the common DaemonSet settings, image, resources, args, env, validation init
 * containers, RuntimeClass), then by the operand's own {@link Transform}.
 */
final class ManifestRenderer {
  private static final Set<String> CLUSTER_SCOPED =
      Set.of("RuntimeClass", "ClusterRole", "ClusterRoleBinding");

  private ManifestRenderer() {}

  static List<HasMetadata> render(Operand operand, RenderContext ctx) {
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata object : Manifests.load(operand.name())) {
      if (!operand.transform().keep(object, ctx)) {
        continue;
      }
      if (!CLUSTER_SCOPED.contains(object.getKind())) {
        object.getMetadata().setNamespace(ctx.namespace());
      }
      bindToNamespace(object, ctx.namespace());
      if (object instanceof DaemonSet ds) {
        transformDaemonSet(operand, ds, ctx);
      }
      operand.transform().apply(object, ctx);
      if (object instanceof DaemonSet ds) {
        DaemonSets.applyLabelsAndAnnotations(ds, ctx.spec().daemonsets);
      }
      object.getMetadata().getLabels().put(Labels.MANAGED_BY, Labels.MANAGED_BY_VALUE);
      out.add(object);
    }
    out = operand.transform().finish(out, ctx);
    out.forEach(ContentHash::annotate);
    return out;
  }

  private static void transformDaemonSet(Operand operand, DaemonSet ds, RenderContext ctx) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    DaemonSets.applyCommon(ds, ctx.spec().daemonsets);
    var taint = NodeLabelRules.policyTaint(ctx.policy());
    if (taint != null) {
      DaemonSets.tolerate(pod, taint);
    }
    DaemonSets.rewriteHostPaths(pod, ctx.spec().hostPaths);

    Section section = operand.section();
    ComponentSpec c = section == null ? null : section.of(ctx.spec());
    Container main = DaemonSets.container(pod, operand.mainContainer());
    if (section != null) {
      main.setImage(
          ImageResolver.resolve(c, section.path(), ctx.config().image(section.imageKey())));
    }
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
      // Our agents' args follow their subcommand; NVIDIA's images get the policy's args instead
      // of the manifest's, as in the original.
      List<String> args = new ArrayList<>();
      if (operand.agent() != null && main.getArgs() != null) {
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
    if (operand.runtimeClass()
        && !"docker".equals(ctx.facts().containerRuntime())
        && !ctx.nriPlugin()) {
      pod.setRuntimeClassName(ctx.runtimeClass());
    }
  }

  /**
   * Points every init container named {@code <component>-validation} at the validator image and
   * adds the policy's {@code spec.validator.<component>.env}. Returns whether there was one.
   */
  private static boolean transformValidationInits(PodSpec pod, RenderContext ctx) {
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
            ImageResolver.resolve(
                v, Section.VALIDATOR.path(), ctx.config().image(Section.VALIDATOR.imageKey()));
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
}
