package io.gpuoperator.cli.chart;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The effective permissions of a ServiceAccount in a rendered chart (every rule of every role bound
 * to it, one line per group, resource, verb and resource name) and the checks the approved list
 * adds: no wildcard, no escalate/bind/impersonate, no RBAC writes, Secrets only in the namespace.
 */
final class RbacPermissions {
  private static final Set<String> FORBIDDEN_VERBS = Set.of("escalate", "bind", "impersonate");
  private static final Set<String> WRITE_VERBS =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  private RbacPermissions() {}

  /**
   * One permission: {@code cluster} or {@code namespace} scope, API group ({@code core} for ""),
   * resource, verb and resource name ({@code *} for any).
   */
  record Permission(String scope, String group, String resource, String verb, String name)
      implements Comparable<Permission> {
    @Override
    public String toString() {
      return String.join(" ", scope, group, resource, verb, name);
    }

    static Permission parse(String line) {
      String[] f = line.trim().split("\\s+");
      if (f.length != 5) {
        throw new IllegalArgumentException(
            "expected 'scope group resource verb name', got: " + line);
      }
      return new Permission(f[0], f[1], f[2], f[3], f[4]);
    }

    @Override
    public int compareTo(Permission o) {
      return toString().compareTo(o.toString());
    }
  }

  /** What the ServiceAccount {@code namespace/name} may do through the rendered bindings. */
  static Set<Permission> of(List<GenericKubernetesResource> objects, String namespace, String sa) {
    Set<Permission> out = new TreeSet<>();
    for (GenericKubernetesResource o : objects) {
      if (o.getKind().equals("ClusterRoleBinding")) {
        ClusterRoleBinding b = HelmChart.convert(o, ClusterRoleBinding.class);
        if (binds(b.getSubjects(), namespace, sa)) {
          add(out, "cluster", rules(objects, b.getRoleRef(), null));
        }
      } else if (o.getKind().equals("RoleBinding")) {
        RoleBinding b = HelmChart.convert(o, RoleBinding.class);
        if (binds(b.getSubjects(), namespace, sa)) {
          add(out, "namespace", rules(objects, b.getRoleRef(), b.getMetadata().getNamespace()));
        }
      }
    }
    return out;
  }

  /** Every problem: forbidden permissions, and ones not in the approved list. */
  static List<String> violations(Set<Permission> granted, Set<Permission> approved) {
    List<String> out = new ArrayList<>();
    for (Permission p : granted) {
      if (p.group().contains("*") || p.resource().contains("*") || p.verb().contains("*")) {
        out.add("wildcard: " + p);
      } else if (FORBIDDEN_VERBS.contains(p.verb())) {
        out.add("forbidden verb " + p.verb() + ": " + p);
      } else if (p.group().equals("rbac.authorization.k8s.io") && WRITE_VERBS.contains(p.verb())) {
        out.add("RBAC written at run time (ship it in the chart): " + p);
      } else if (p.resource().equals("secrets") && p.scope().equals("cluster")) {
        out.add("Secrets outside the operator namespace: " + p);
      } else if (!approved.contains(p)) {
        out.add("not in the approved list: " + p);
      }
    }
    return out;
  }

  private static boolean binds(List<Subject> subjects, String namespace, String sa) {
    return subjects != null
        && subjects.stream()
            .anyMatch(
                s ->
                    "ServiceAccount".equals(s.getKind())
                        && sa.equals(s.getName())
                        && namespace.equals(s.getNamespace()));
  }

  private static List<PolicyRule> rules(
      List<GenericKubernetesResource> objects, RoleRef ref, String namespace) {
    for (GenericKubernetesResource o : objects) {
      if (!o.getKind().equals(ref.getKind()) || !o.getMetadata().getName().equals(ref.getName())) {
        continue;
      }
      if (o.getKind().equals("ClusterRole")) {
        return HelmChart.convert(o, ClusterRole.class).getRules();
      }
      if (namespace.equals(o.getMetadata().getNamespace())) {
        return HelmChart.convert(o, Role.class).getRules();
      }
    }
    throw new AssertionError("binding to a role that is not rendered: " + ref);
  }

  private static void add(Set<Permission> out, String scope, List<PolicyRule> rules) {
    for (PolicyRule r : rules) {
      List<String> names =
          r.getResourceNames() == null || r.getResourceNames().isEmpty()
              ? List.of("*")
              : r.getResourceNames();
      for (String group : r.getApiGroups()) {
        for (String resource : r.getResources()) {
          for (String verb : r.getVerbs()) {
            for (String name : names) {
              out.add(
                  new Permission(scope, group.isEmpty() ? "core" : group, resource, verb, name));
            }
          }
        }
      }
    }
  }
}
