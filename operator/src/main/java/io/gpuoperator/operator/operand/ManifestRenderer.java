package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ValidatorSpec;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Renders an {@link Operand}: chooses its rendering by the image the policy names (NVIDIA's image
 * runs the original's contract from {@code manifests/<operand>/}, our image runs our agent with the
 * {@code agent/} overlay), loads the manifests as typed objects and changes only the fields the
 * policy controls, first with the transforms every DaemonSet gets (the original's common ones, in
 * its order), then with the rendering's own {@link Transform}. Ownership and hash are stamped
 * afterwards, by {@link ManagedObjects#stamp} in {@link Operands#renderAll}.
 */
final class ManifestRenderer {
  /** The original's validator binary, which our image runs as the {@code validator} subcommand. */
  static final String NVIDIA_VALIDATOR = "nvidia-validator";

  private ManifestRenderer() {}

  static List<HasMetadata> render(Operand operand, RenderContext base) {
    Rendering rendering = choose(operand, base);
    RenderContext ctx = base.with(operand, rendering);
    boolean agent = rendering.isAgent();
    Transform transform = agent ? operand.agent().transform() : operand.transform();
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata loaded : Manifests.load(operand.name(), agent ? Agent.OVERLAY : null)) {
      if (OperandRbac.isRbac(loaded)
          || !SecurityContextConstraintsModel.keep(loaded, ctx)
          || !transform.keep(loaded, ctx)) {
        continue; // RBAC ships with the chart (OperandRbac)
      }
      HasMetadata object = SecurityContextConstraintsModel.grant(loaded, ctx);
      if (ManagedObjects.isNamespaced(object)) {
        object.getMetadata().setNamespace(ctx.namespace());
      }
      if (ServiceMonitors.is(object)) {
        ServiceMonitors.namespace((GenericKubernetesResource) object, ctx.namespace());
      }
      if (object instanceof DaemonSet ds) {
        beforeTransform(operand, transform, ds, ctx);
      }
      transform.apply(object, ctx);
      if (object instanceof DaemonSet ds) {
        afterTransform(operand, transform, ds, ctx);
      }
      out.add(object);
    }
    List<HasMetadata> done = transform.finish(out, ctx);
    for (HasMetadata object : done) {
      if (object instanceof DaemonSet ds) {
        SimulatedHardware.apply(
            ds.getSpec().getTemplate().getSpec(),
            ctx.config().simulatedHardwareDir(),
            ctx.config().agents());
      }
    }
    return done;
  }

  /**
   * NVIDIA's image gets the original's contract; our image gets our agent when this binary has it.
   * Our image for an operand without an agent is refused, naming the field, except where the
   * operand borrows another section's image (the MPS control daemon runs the device plugin's): then
   * NVIDIA's default image runs it.
   */
  static Rendering choose(Operand operand, RenderContext ctx) {
    Section section = operand.section();
    if (section == null || operand.mainContainer() == null) {
      return Rendering.NONE;
    }
    String image = ctx.image(section);
    Agent agent = operand.agent();
    if (!OperandImages.isProjectImage(image)) {
      if (agent != null && OperandImages.nvidiaDefault(section.imageKey()) == null) {
        // Only our agent is rendered for it (the DRA driver): no NVIDIA contract to fall back on.
        throw badImage(
            section,
            image,
            "is not this project's image: the operator renders "
                + operand.name()
                + " only for its own agent (gpu-operator "
                + agent.subcommand()
                + "); leave the image unset or name this project's image (a mirror keeps the"
                + " gpu-operator-java/gpu-operator path)");
      }
      return Rendering.nvidia(image, null);
    }
    if (agent != null && ctx.config().agents().contains(agent.subcommand())) {
      return Rendering.agent(image, agent.subcommand());
    }
    String nvidia = OperandImages.nvidiaDefault(section.imageKey());
    if (!section.imageKey().equals(operand.name())) {
      return Rendering.nvidia(
          OperandImages.onMirrorOf(nvidia, image),
          "this project has no " + operand.name() + " agent, so NVIDIA's image runs it");
    }
    String why =
        agent == null
            ? "this project has no " + operand.name() + " agent yet"
            : "this build has no '" + agent.subcommand() + "' subcommand";
    throw badImage(
        section,
        image,
        "is this project's image, but "
            + why
            + ": name NVIDIA's image for it (e.g. "
            + nvidia
            + ") or leave the image unset");
  }

  private static PolicyValidationException badImage(Section section, String image, String why) {
    return new PolicyValidationException(
        List.of(new Violation(section.path() + ".image", "'" + image + "' " + why)));
  }

  /** The original's common DaemonSet transforms (its steps 1-6), then image and section. */
  private static void beforeTransform(
      Operand operand, Transform transform, DaemonSet ds, RenderContext ctx) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    DaemonSets.applyCommon(ds, ctx.spec().daemonsets);
    var taint = NodeLabelRules.policyTaint(ctx.policy());
    if (taint != null) {
      DaemonSets.tolerate(pod, taint);
    }
    Section section = operand.section();
    ComponentSpec c = section.of(ctx.spec());
    Container main = DaemonSets.container(pod, operand.mainContainer());
    main.setImage(ctx.rendering().image());
    main.setImagePullPolicy(ImageResolver.pullPolicy(c == null ? null : c.imagePullPolicy));
    Set<String> secrets = new LinkedHashSet<>();
    if (pod.getImagePullSecrets() != null) {
      pod.getImagePullSecrets().forEach(s -> secrets.add(s.getName()));
    }
    addSecrets(secrets, c);
    if (c != null && c.resources != null) {
      // Every container of the pod (sidecars too); init containers get theirs elsewhere.
      pod.getContainers().forEach(x -> x.setResources(c.resources));
    }
    if (c != null
        && c.args != null
        && !c.args.isEmpty()
        && transform.sectionEnv() != Transform.SectionEnv.NONE) {
      // Our agents' args follow their subcommand; NVIDIA's images get the policy's args instead
      // of the manifest's, as in the original.
      List<String> args = new ArrayList<>();
      if (ctx.rendering().isAgent() && main.getArgs() != null) {
        args.addAll(main.getArgs());
      }
      args.addAll(c.args);
      main.setArgs(args);
    }
    if (validationInits(pod, ctx)) {
      addSecrets(secrets, ctx.spec().validator);
    }
    // After the validation steps became our validator where they run it: it reads other paths.
    DaemonSets.rewriteHostPaths(pod, ctx.customRootFs(), ctx.customDriverInstallDir());
    List<LocalObjectReference> refs = new ArrayList<>();
    secrets.forEach(s -> refs.add(new LocalObjectReference(s)));
    pod.setImagePullSecrets(refs.isEmpty() ? null : refs);
    // Not with CRI-O without CDI (its OCI hook injects the GPUs), not with the CDI NRI plugin
    // (it injects devices for the default runtime; there are no RuntimeClasses then).
    boolean crioHook = "crio".equals(ctx.runtime()) && !ctx.cdiEnabled();
    if (operand.runtimeClass() && !crioHook && !ctx.nriPlugin()) {
      pod.setRuntimeClassName(ctx.runtimeClass());
    }
    if (operand.runtimeClass() && ctx.nriPlugin()) {
      DaemonSets.podAnnotation(
          ds, DaemonSets.NRI_ANNOTATION_PREFIX + main.getName(), DaemonSets.NRI_ALL_GPUS);
    }
    if (c != null && Boolean.TRUE.equals(c.hostNetwork)) {
      pod.setHostNetwork(true);
      pod.setDnsPolicy("ClusterFirstWithHostNet");
    }
  }

  /** The section's env (unless the transform placed it) and each validation step's own env. */
  private static void afterTransform(
      Operand operand, Transform transform, DaemonSet ds, RenderContext ctx) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    ComponentSpec c = operand.section().of(ctx.spec());
    if (transform.sectionEnv() == Transform.SectionEnv.AFTER) {
      DaemonSets.mergeEnv(DaemonSets.container(pod, operand.mainContainer()), c);
    }
    ValidatorSpec v = ctx.spec().validator;
    if (pod.getInitContainers() != null && v != null) {
      // The validators' own steps get their component's env; other operands' waits only the
      // driver and toolkit steps' (the original's transformValidationInitContainer).
      boolean validator = operand.section() == Section.VALIDATOR;
      for (Container init : pod.getInitContainers()) {
        if (init.getName().endsWith("-validation")
            && (validator
                || init.getName().startsWith("driver")
                || init.getName().startsWith("toolkit"))) {
          ValidatorSpec.Component settings = validatorComponent(v, init.getName());
          if (settings != null && settings.env != null) {
            settings.env.forEach(e -> DaemonSets.setEnv(init, e.name, e.value));
          }
        }
      }
    }
    DaemonSets.applyLabelsAndAnnotations(ds, ctx.spec().daemonsets);
  }

  /**
   * Every init container named {@code *-validation} runs the validator's image (with its pull
   * policy when set, its resources, as root); the original's {@code nvidia-validator} becomes our
   * {@code validator} subcommand when the validator image is ours. Returns whether there was one.
   */
  private static boolean validationInits(PodSpec pod, RenderContext ctx) {
    if (pod.getInitContainers() == null) {
      return false;
    }
    boolean any = false;
    ValidatorSpec v = ctx.spec().validator;
    for (Container init : pod.getInitContainers()) {
      if (!init.getName().endsWith("-validation")) {
        continue;
      }
      any = true;
      init.setImage(ctx.image(Section.VALIDATOR));
      String pull = RenderContext.pullPolicyIfSet(v);
      if (pull != null) {
        init.setImagePullPolicy(pull);
      }
      if (v != null && v.resources != null) {
        init.setResources(v.resources);
      }
      runAsRoot(init);
      if (ctx.validatorIsAgent() && runsNvidiaValidator(init)) {
        init.setCommand(null);
        init.setArgs(new ArrayList<>(List.of(validatorAgent(ctx))));
      }
    }
    return any;
  }

  /** Our validator's subcommand, when this binary has it. */
  private static String validatorAgent(RenderContext ctx) {
    String sub = Operands.byName(OperandNames.OPERATOR_VALIDATOR).agent().subcommand();
    if (!ctx.config().agents().contains(sub)) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  Section.VALIDATOR.path() + ".image",
                  "'"
                      + ctx.image(Section.VALIDATOR)
                      + "' is this project's image, but this build has no '"
                      + sub
                      + "' subcommand: name NVIDIA's validator image (e.g. "
                      + OperandImages.nvidiaDefault(Section.VALIDATOR.imageKey())
                      + ")")));
    }
    return sub;
  }

  private static boolean runsNvidiaValidator(Container c) {
    List<String> line = new ArrayList<>();
    if (c.getCommand() != null) {
      line.addAll(c.getCommand());
    }
    if (c.getArgs() != null) {
      line.addAll(c.getArgs());
    }
    return line.contains(NVIDIA_VALIDATOR);
  }

  /** The original runs the validator as root ({@code runAsUser: 0}) wherever it runs. */
  static void runAsRoot(Container c) {
    if (c.getSecurityContext() == null) {
      c.setSecurityContext(new SecurityContext());
    }
    c.getSecurityContext().setRunAsUser(0L);
  }

  private static void addSecrets(Set<String> secrets, ComponentSpec c) {
    if (c != null && c.imagePullSecrets != null) {
      c.imagePullSecrets.stream().filter(s -> s != null && !s.isBlank()).forEach(secrets::add);
    }
  }

  private static ValidatorSpec.Component validatorComponent(ValidatorSpec v, String initName) {
    String component = initName.substring(0, initName.length() - "-validation".length());
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
}
