package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.operator.labels.NodeLabelRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Node-agents mode (operator env {@code NODE_AGENTS=true}): the DaemonSets of this project's
 * long-running node agents (device plugin, DRA plugin, exporter, feature discovery, MIG manager)
 * folded into one, {@code nvidia-node-agents}, whose single container runs {@code gpu-operator
 * node-agents} with one {@code --run} per hosted agent: one JVM per node instead of one each.
 *
 * <p>It is built from the agents' own rendered DaemonSets, so every policy setting reaches it the
 * way it reaches them. Per hosted agent: its command line becomes a {@code --run}; its nodeSelector
 * and required node affinity become its {@code --node-selector} (the supervisor stops the agent
 * while its node's labels do not match, which keeps {@code nvidia.com/gpu.deploy.<operand>} and the
 * MIG manager's pause working per agent); a variable every hosted agent sets alike stays as it is,
 * one they set differently (or only some set) becomes {@code <AGENT>__NAME} for that agent only,
 * except the ones the container runtime reads ({@code NVIDIA_VISIBLE_DEVICES}, {@code
 * NVIDIA_DRIVER_CAPABILITIES}, the MIG capabilities), which stay the container's. For the pod: the
 * union of volumes, mounts (read-only only where every agent mounts it so, the strongest
 * propagation), ports, tolerations and pull secrets; the init containers in the agents' order, one
 * per name (the same wait for the validator's marker); privileged when an agent in it is (the MIG
 * manager and the DRA plugin are), else what each agent needs and the restrictions all share;
 * resources summed; no liveness or readiness probe (one failing agent must not restart the others:
 * the supervisor restarts it alone). The exporter's Service selects the node-agents pods; the DRA
 * admission policy restricts the node-agents ServiceAccount as it does the plugin's.
 *
 * <p>An agent stays in its own DaemonSet where folding would change it: with a sidecar (feature
 * discovery with NVIDIA's config-manager, which signals its process), another image than the first
 * hosted agent's, an argument with whitespace, or node affinity of more than one term.
 *
 * <p>This class chooses the hosted agents and composes the operands; the merge rules live in {@link
 * NodeAgentsContainer} (the container) and {@link NodeAgentsPod} (the pod).
 */
final class NodeAgentsModel {
  /** The operand name of the node-agents DaemonSet (its ownership label, status and plan). */
  static final String NAME = OperandNames.NODE_AGENTS;

  static final String DAEMONSET = "nvidia-node-agents";
  static final String CONTAINER = "nvidia-node-agents";
  static final String SERVICE_ACCOUNT = "nvidia-node-agents";
  static final String SUBCOMMAND = "node-agents";

  /** The operands that can be hosted, in deploy order. */
  static final List<String> HOSTABLE =
      List.of(
          OperandNames.DEVICE_PLUGIN,
          OperandNames.DRA_DRIVER,
          OperandNames.DCGM_EXPORTER,
          OperandNames.GPU_FEATURE_DISCOVERY,
          OperandNames.MIG_MANAGER);

  private NodeAgentsModel() {}

  /** One hosted agent: its operand, its DaemonSet and main container as rendered alone. */
  private record Hosted(RenderedOperand operand, DaemonSet ds, Container main, String selector) {
    String agent() {
      return operand.rendering().agent();
    }
  }

  /**
   * The operands with the hostable agents' DaemonSets taken out and the node-agents DaemonSet added
   * after the last hosted one; when none is hosted, a disabled {@value #NAME} entry at the end (so
   * a node-agents DaemonSet left from the mode being on is deleted).
   */
  static List<RenderedOperand> compose(List<RenderedOperand> operands, RenderContext ctx) {
    List<Hosted> hosted = new ArrayList<>();
    // Never a DaemonSet calling a subcommand this binary lacks.
    boolean available = ctx.config().agents().contains(SUBCOMMAND);
    for (RenderedOperand op : available ? operands : List.<RenderedOperand>of()) {
      Hosted h = hostable(op);
      if (h != null && (hosted.isEmpty() || sameImage(hosted.get(0), h))) {
        hosted.add(h);
      }
    }
    List<RenderedOperand> out = new ArrayList<>();
    if (hosted.isEmpty()) {
      out.addAll(operands);
      out.add(new RenderedOperand(NAME, false, List.of()));
      return out;
    }
    DaemonSet ds = daemonSet(hosted, ctx);
    ManagedObjects.stamp(ds, NAME, ctx.namespace());
    // Its ServiceAccount (the chart ships the RoleBindings to the hosted agents' roles).
    List<HasMetadata> own = new ArrayList<>();
    for (HasMetadata o : Manifests.load(NAME)) {
      if (!OperandRbac.isRbac(o) && !(o instanceof DaemonSet)) {
        o.getMetadata().setNamespace(ctx.namespace());
        own.add(ManagedObjects.stamp(o, NAME, ctx.namespace()));
      }
    }
    own.add(ds);
    boolean draHosted =
        hosted.stream().anyMatch(h -> h.operand().name().equals(OperandNames.DRA_DRIVER));
    RenderedOperand last = hosted.get(hosted.size() - 1).operand();
    for (RenderedOperand op : operands) {
      Hosted h = hosted.stream().filter(x -> x.operand() == op).findFirst().orElse(null);
      if (h == null) {
        out.add(op);
        continue;
      }
      List<HasMetadata> rest = new ArrayList<>();
      for (HasMetadata o : op.objects()) {
        if (o == h.ds()) {
          continue;
        }
        if (o instanceof Service svc && svc.getSpec().getSelector() != null) {
          o = retarget(svc, h.ds(), op.name(), ctx);
        } else if (o instanceof ValidatingAdmissionPolicy vap && draHosted) {
          o = alsoNodeAgents(vap, op.name(), ctx);
        }
        rest.add(o);
      }
      out.add(new RenderedOperand(op.name(), true, rest, op.rendering(), ds));
      if (op == last) {
        out.add(
            new RenderedOperand(
                NAME, true, own, Rendering.agent(mainOf(ds).getImage(), SUBCOMMAND)));
      }
    }
    return out;
  }

  /** The operand's agent DaemonSet when it can be folded in, else null. */
  private static Hosted hostable(RenderedOperand op) {
    if (!op.enabled() || !op.rendering().isAgent() || !HOSTABLE.contains(op.name())) {
      return null;
    }
    Operand operand = Operands.byName(op.name());
    DaemonSet ds =
        op.objects().stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .filter(
                d ->
                    DaemonSets.find(d.getSpec().getTemplate().getSpec(), operand.mainContainer())
                        != null)
            .findFirst()
            .orElse(null);
    if (ds == null) {
      return null;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    if (pod.getContainers().size() != 1) {
      return null; // a sidecar signals or serves its own process
    }
    Container main = pod.getContainers().get(0);
    List<String> line = new ArrayList<>();
    if (main.getCommand() != null && !main.getCommand().isEmpty()) {
      return null; // not our binary's subcommand
    }
    line.addAll(main.getArgs() == null ? List.of() : main.getArgs());
    if (line.isEmpty() || line.stream().anyMatch(a -> a.isEmpty() || a.matches(".*\\s.*"))) {
      return null;
    }
    String selector = selector(pod);
    if (selector == null) {
      return null;
    }
    return new Hosted(op, ds, main, selector);
  }

  private static boolean sameImage(Hosted a, Hosted b) {
    return Objects.equals(a.main().getImage(), b.main().getImage())
        && Objects.equals(a.main().getImagePullPolicy(), b.main().getImagePullPolicy());
  }

  /**
   * The pod's node requirements as {@code key=value,key!=value}, or null when they cannot be said
   * so (several affinity terms, or In/NotIn with other than one value).
   */
  static String selector(PodSpec pod) {
    List<String> parts = new ArrayList<>();
    if (pod.getNodeSelector() != null) {
      new java.util.TreeMap<>(pod.getNodeSelector()).forEach((k, v) -> parts.add(k + "=" + v));
    }
    Affinity a = pod.getAffinity();
    if (a != null
        && a.getNodeAffinity() != null
        && a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      List<NodeSelectorTerm> terms =
          a.getNodeAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution()
              .getNodeSelectorTerms();
      if (terms.size() > 1) {
        return null;
      }
      for (NodeSelectorTerm t : terms) {
        if (t.getMatchFields() != null && !t.getMatchFields().isEmpty()) {
          return null;
        }
        for (NodeSelectorRequirement r :
            t.getMatchExpressions() == null
                ? List.<NodeSelectorRequirement>of()
                : t.getMatchExpressions()) {
          if (r.getValues() == null || r.getValues().size() != 1) {
            return null;
          }
          switch (r.getOperator()) {
            case "In" -> parts.add(r.getKey() + "=" + r.getValues().get(0));
            case "NotIn" -> parts.add(r.getKey() + "!=" + r.getValues().get(0));
            default -> {
              return null;
            }
          }
        }
      }
    }
    return String.join(",", parts);
  }

  private static DaemonSet daemonSet(List<Hosted> hosted, RenderContext ctx) {
    DaemonSet ds =
        (DaemonSet)
            Manifests.load(NAME).stream()
                .filter(DaemonSet.class::isInstance)
                .findFirst()
                .orElseThrow();
    ds.getMetadata().setNamespace(ctx.namespace());
    DaemonSets.applyCommon(ds, ctx.spec().daemonsets);
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container main = mainOf(ds);
    Hosted first = hosted.get(0);
    main.setImage(first.main().getImage());
    main.setImagePullPolicy(first.main().getImagePullPolicy());

    List<String> args = new ArrayList<>(List.of(SUBCOMMAND));
    for (Hosted h : hosted) {
      args.add("--run");
      args.add(String.join(" ", h.main().getArgs()));
    }
    for (Hosted h : hosted) {
      if (!h.selector().isEmpty()) {
        args.add("--node-selector");
        args.add(h.agent() + "=" + h.selector());
      }
    }
    main.setArgs(args);
    Map<String, Container> byAgent = new LinkedHashMap<>();
    hosted.forEach(h -> byAgent.put(h.agent(), h.main()));
    List<Container> mains = hosted.stream().map(Hosted::main).toList();
    main.setEnv(NodeAgentsContainer.env(byAgent));
    main.setVolumeMounts(NodeAgentsContainer.mounts(mains));
    main.setPorts(NodeAgentsContainer.ports(mains));
    main.setSecurityContext(NodeAgentsContainer.securityContext(mains));
    main.setResources(NodeAgentsContainer.resources(mains));

    List<PodSpec> pods =
        hosted.stream().map(h -> h.ds().getSpec().getTemplate().getSpec()).toList();
    pod.setInitContainers(NodeAgentsPod.initContainers(pods));
    pod.setVolumes(NodeAgentsPod.volumes(pods, pod));
    pod.setTolerations(NodeAgentsPod.tolerations(pods));
    pod.setImagePullSecrets(NodeAgentsPod.pullSecrets(pods));
    pod.setAffinity(NodeAgentsPod.affinity(pods));
    pod.setHostPID(NodeAgentsPod.anyTrue(pods.stream().map(PodSpec::getHostPID).toList()));
    pod.setHostIPC(NodeAgentsPod.anyTrue(pods.stream().map(PodSpec::getHostIPC).toList()));
    if (Boolean.TRUE.equals(
        NodeAgentsPod.anyTrue(pods.stream().map(PodSpec::getHostNetwork).toList()))) {
      pod.setHostNetwork(true);
      pod.setDnsPolicy("ClusterFirstWithHostNet");
    }
    // The exporter alone runs without a token; any other agent needs the API.
    pod.setAutomountServiceAccountToken(
        pods.stream().allMatch(p -> Boolean.FALSE.equals(p.getAutomountServiceAccountToken()))
            ? Boolean.FALSE
            : null);
    pod.setRuntimeClassName(
        pods.stream()
            .map(PodSpec::getRuntimeClassName)
            .filter(Objects::nonNull)
            .findFirst()
            .orElse(null));
    pod.setShareProcessNamespace(
        NodeAgentsPod.anyTrue(pods.stream().map(PodSpec::getShareProcessNamespace).toList()));
    for (Hosted h : hosted) {
      var annotations = h.ds().getSpec().getTemplate().getMetadata().getAnnotations();
      if (annotations == null) {
        continue;
      }
      String nri = DaemonSets.NRI_ANNOTATION_PREFIX + h.main().getName();
      annotations.forEach(
          (k, v) -> {
            if (!k.startsWith(DaemonSets.NRI_ANNOTATION_PREFIX)) {
              DaemonSets.podAnnotation(ds, k, v);
            } else if (k.equals(nri)) {
              DaemonSets.podAnnotation(ds, DaemonSets.NRI_ANNOTATION_PREFIX + CONTAINER, v);
            }
          });
    }
    var taint = NodeLabelRules.policyTaint(ctx.policy());
    if (taint != null) {
      DaemonSets.tolerate(pod, taint);
    }
    DaemonSets.applyLabelsAndAnnotations(ds, ctx.spec().daemonsets);
    return ds;
  }

  static Container mainOf(DaemonSet ds) {
    return DaemonSets.container(ds.getSpec().getTemplate().getSpec(), CONTAINER);
  }

  /** The hosted operand's Service, selecting the node-agents pods instead (re-stamped). */
  private static HasMetadata retarget(
      Service svc, DaemonSet hostedDs, String operand, RenderContext ctx) {
    Map<String, String> podLabels = hostedDs.getSpec().getTemplate().getMetadata().getLabels();
    if (podLabels == null
        || !podLabels.entrySet().containsAll(svc.getSpec().getSelector().entrySet())) {
      return svc; // not the hosted pods' Service
    }
    Service copy = Serialization.clone(svc);
    copy.getSpec().setSelector(new LinkedHashMap<>(Map.of("app", DAEMONSET)));
    return ManagedObjects.stamp(copy, operand, ctx.namespace());
  }

  /** The DRA admission policy, matching the node-agents ServiceAccount too (re-stamped). */
  private static HasMetadata alsoNodeAgents(
      ValidatingAdmissionPolicy vap, String operand, RenderContext ctx) {
    ValidatingAdmissionPolicy copy = Serialization.clone(vap);
    String dra =
        "system:serviceaccount:" + ctx.namespace() + ":" + DraDriverTransform.SERVICE_ACCOUNT;
    String ours = "system:serviceaccount:" + ctx.namespace() + ":" + SERVICE_ACCOUNT;
    copy.getSpec()
        .getMatchConditions()
        .forEach(
            c -> c.setExpression("request.userInfo.username in ['" + dra + "', '" + ours + "']"));
    return ManagedObjects.stamp(copy, operand, ctx.namespace());
  }
}
