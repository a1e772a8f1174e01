package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operands' RBAC (Roles, RoleBindings, ClusterRoles, ClusterRoleBindings), which the Helm chart
 * ships and the operator never writes: an operator that creates roles at run time must hold every
 * permission it grants (or {@code escalate}/{@code bind}), so least privilege means installing them
 * once, with the chart. One object per kind and name for every configuration: where the original's
 * manifests and our agent's overlay declare the same role, the shipped one holds both rule sets.
 */
public final class OperandRbac {
  /** The RBAC API, whose objects this class owns and the renderer drops. */
  public static final String API_VERSION = "rbac.authorization.k8s.io/v1";

  private OperandRbac() {}

  /** Whether the object is RBAC (shipped by the chart, never rendered at run time). */
  public static boolean isRbac(HasMetadata object) {
    return API_VERSION.equals(object.getApiVersion());
  }

  /**
   * Every operand's RBAC objects with their ServiceAccount subjects in {@code namespace}, in the
   * operands' deploy order and file order, namespaced ones in {@code namespace}.
   */
  public static List<HasMetadata> all(String namespace) {
    Map<String, HasMetadata> out = new LinkedHashMap<>();
    List<List<HasMetadata>> folders = new ArrayList<>();
    for (Operand operand : Operands.ordered()) {
      List<HasMetadata> objects = new ArrayList<>(Manifests.load(operand.name()));
      if (operand.agent() != null) {
        objects.addAll(Manifests.load(operand.name(), Agent.OVERLAY));
      }
      folders.add(objects);
    }
    // Node-agents mode's ServiceAccount holds the hosted agents' roles (NodeAgentsModel).
    folders.add(Manifests.load(OperandNames.NODE_AGENTS));
    for (List<HasMetadata> objects : folders) {
      for (HasMetadata object : objects) {
        if (!isRbac(object)) {
          continue;
        }
        if (ManagedObjects.isNamespaced(object)) {
          object.getMetadata().setNamespace(namespace);
        }
        subjects(object).stream()
            .filter(s -> "ServiceAccount".equals(s.getKind()))
            .forEach(s -> s.setNamespace(namespace));
        out.merge(
            object.getKind() + "/" + object.getMetadata().getName(), object, OperandRbac::union);
      }
    }
    return List.copyOf(out.values());
  }

  /** The ServiceAccount subjects of a binding (empty for a role). */
  static List<Subject> subjects(HasMetadata object) {
    if (object instanceof RoleBinding rb) {
      return rb.getSubjects();
    }
    if (object instanceof ClusterRoleBinding crb) {
      return crb.getSubjects();
    }
    return List.of();
  }

  private static HasMetadata union(HasMetadata a, HasMetadata b) {
    List<PolicyRule> rules = rules(a);
    if (rules != null) {
      for (PolicyRule rule : rules(b)) {
        if (!rules.contains(rule)) {
          rules.add(rule);
        }
      }
    }
    return a;
  }

  private static List<PolicyRule> rules(HasMetadata object) {
    if (object instanceof Role r) {
      return r.getRules();
    }
    if (object instanceof ClusterRole r) {
      return r.getRules();
    }
    return null;
  }
}
