package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.operand.Rendering;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders a {@link Plan} as the readable text {@code gpu-operator plan} prints. */
public final class PlanPrinter {
  private PlanPrinter() {}

  /** The whole plan. */
  public static String print(Plan plan, String source) {
    StringBuilder out = new StringBuilder();
    var f = plan.facts();
    out.append("ClusterPolicy ").append(plan.policy().getMetadata().getName()).append(": valid\n");
    out.append("Cluster (")
        .append(source)
        .append("): ")
        .append(f.gpuNodeCount())
        .append(" GPU node(s), runtime ")
        .append(f.containerRuntime())
        .append(", OS ")
        .append(f.osTag() == null ? "unknown" : f.osTag())
        .append(", ServiceMonitor CRD ")
        .append(f.serviceMonitorCrd() ? "present" : "absent")
        .append("\n\nObjects:\n");
    for (RenderedOperand op : plan.operands()) {
      if (!op.enabled() && OperandNames.NODE_AGENTS.equals(op.name())) {
        continue; // a mode, not an operand of the policy: listed when on
      }
      out.append("  ").append(op.name());
      List<ObjectDiff.Entry> entries =
          plan.objects().stream()
              .filter(e -> e.operand().equals(op.name()) && e.action() != ObjectDiff.Action.DELETE)
              .toList();
      if (!op.enabled()) {
        out.append(" (disabled)");
      } else if (op.rendering().kind() != Rendering.Kind.NONE) {
        // Which of the two renderings: the original's contract for NVIDIA's image, or our agent.
        out.append(": ").append(op.rendering().describe());
      }
      out.append('\n');
      for (ObjectDiff.Entry e : entries) {
        line(out, e);
      }
    }
    List<ObjectDiff.Entry> deletes =
        plan.objects().stream().filter(e -> e.action() == ObjectDiff.Action.DELETE).toList();
    if (!deletes.isEmpty()) {
      out.append("  (no longer rendered)\n");
      deletes.forEach(e -> line(out, e));
    }
    if (!plan.nodes().isEmpty()) {
      out.append("\nNodes:\n");
      for (Plan.NodeEntry n : plan.nodes()) {
        out.append("  ").append(n.name()).append(": ");
        if (!n.desired().gpuNode()) {
          out.append("not a GPU node");
        } else {
          out.append("GPU node");
        }
        out.append(n.change().isEmpty() ? ", no change\n" : "\n");
        if (n.desired().gpuNode()) {
          out.append("    labels: ")
              .append(
                  n.desired().labels().entrySet().stream()
                      .map(e -> e.getKey() + "=" + e.getValue())
                      .collect(Collectors.joining(", ")))
              .append('\n');
          out.append("    taint: ")
              .append(
                  n.desired().taint() == null ? "none" : NodeLabelRules.format(n.desired().taint()))
              .append('\n');
        }
        if (!n.change().isEmpty()) {
          out.append("    change: ").append(n.change().describe()).append('\n');
        }
        if (!n.runs().isEmpty()) {
          out.append("    runs: ").append(String.join(", ", n.runs())).append('\n');
        }
        if (!n.blocked().isEmpty()) {
          out.append("    blocked: ").append(String.join(", ", n.blocked())).append('\n');
        }
      }
    }
    long changedNodes = plan.nodes().stream().filter(n -> !n.change().isEmpty()).count();
    out.append("\nSummary: ")
        .append(plan.count(ObjectDiff.Action.CREATE))
        .append(" to create, ")
        .append(plan.count(ObjectDiff.Action.UPDATE))
        .append(" to update, ")
        .append(plan.count(ObjectDiff.Action.DELETE))
        .append(" to delete, ")
        .append(plan.count(ObjectDiff.Action.UNCHANGED))
        .append(" unchanged");
    if (!plan.nodes().isEmpty()) {
      out.append("; ")
          .append(changedNodes)
          .append(" of ")
          .append(plan.nodes().size())
          .append(" node(s) change");
    }
    out.append('\n');
    return out.toString();
  }

  /**
   * The plan as data for {@code -o yaml|json}: the same facts as the text, with stable keys ({@code
   * policy}, {@code cluster}, {@code objects}, {@code nodes}, {@code summary}); with {@code
   * manifests}, each object to create or update carries its rendered manifest.
   */
  public static Map<String, Object> structured(Plan plan, String source, boolean manifests) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("policy", Map.of("name", plan.policy().getMetadata().getName(), "valid", true));
    var f = plan.facts();
    Map<String, Object> cluster = new LinkedHashMap<>();
    cluster.put("source", source);
    cluster.put("gpuNodes", f.gpuNodeCount());
    cluster.put("containerRuntime", f.containerRuntime());
    cluster.put("os", f.osTag());
    cluster.put("serviceMonitorCrd", f.serviceMonitorCrd());
    out.put("cluster", cluster);
    Map<String, HasMetadata> rendered = new HashMap<>();
    for (RenderedOperand op : plan.operands()) {
      for (HasMetadata o : op.objects()) {
        rendered.put(
            o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(),
            o);
      }
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    for (ObjectDiff.Entry e : plan.objects()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("operand", e.operand());
      o.put("kind", e.kind());
      o.put("namespace", e.namespace());
      o.put("name", e.name());
      o.put("action", e.action().name().toLowerCase(Locale.ROOT));
      o.put("changes", e.changes());
      HasMetadata manifest = rendered.get(e.kind() + "/" + e.namespace() + "/" + e.name());
      if (manifests
          && manifest != null
          && (e.action() == ObjectDiff.Action.CREATE || e.action() == ObjectDiff.Action.UPDATE)) {
        o.put("manifest", manifest);
      }
      objects.add(o);
    }
    out.put("objects", objects);
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (Plan.NodeEntry n : plan.nodes()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", n.name());
      m.put("gpuNode", n.desired().gpuNode());
      m.put("labels", n.desired().labels());
      m.put(
          "taint", n.desired().taint() == null ? null : NodeLabelRules.format(n.desired().taint()));
      m.put("labelsToSet", n.change().labelsToSet());
      m.put("labelsToRemove", n.change().labelsToRemove());
      m.put("changes", !n.change().isEmpty());
      m.put("runs", n.runs());
      m.put("blocked", n.blocked());
      nodes.add(m);
    }
    out.put("nodes", nodes);
    Map<String, Object> summary = new LinkedHashMap<>();
    for (ObjectDiff.Action a : ObjectDiff.Action.values()) {
      summary.put(a.name().toLowerCase(Locale.ROOT), plan.count(a));
    }
    summary.put("nodesChanging", plan.nodes().stream().filter(n -> !n.change().isEmpty()).count());
    out.put("summary", summary);
    return out;
  }

  /** The rendered YAML of every object the plan creates or updates, as one multi-document. */
  public static String manifests(Plan plan) {
    var wanted =
        plan.objects().stream()
            .filter(
                e ->
                    e.action() == ObjectDiff.Action.CREATE
                        || e.action() == ObjectDiff.Action.UPDATE)
            .map(e -> e.kind() + "/" + e.namespace() + "/" + e.name())
            .collect(Collectors.toSet());
    StringBuilder out = new StringBuilder();
    for (RenderedOperand op : plan.operands()) {
      for (var o : op.objects()) {
        if (wanted.contains(
            o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName())) {
          String yaml = io.fabric8.kubernetes.client.utils.Serialization.asYaml(o);
          out.append(yaml.startsWith("---") ? yaml : "---\n" + yaml);
        }
      }
    }
    return out.toString();
  }

  private static void line(StringBuilder out, ObjectDiff.Entry e) {
    out.append("    ")
        .append(e.ref())
        .append(": ")
        .append(e.action().name().toLowerCase(Locale.ROOT))
        .append('\n');
    for (String c : e.changes()) {
      out.append("      ").append(c).append('\n');
    }
  }
}
