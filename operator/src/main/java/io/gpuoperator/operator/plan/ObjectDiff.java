package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compares what the operator would render with the live objects: each object is created, updated
 * (with the fields that change), deleted or unchanged. Unchanged is {@link
 * ManagedObjects#upToDate}, the test the operator's applier makes before it writes; deleted are
 * live objects with the ownership label that nothing renders any more.
 */
public final class ObjectDiff {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final int MAX_CHANGES = 25;

  private ObjectDiff() {}

  /** What happens to one object. */
  public enum Action {
    CREATE,
    UPDATE,
    DELETE,
    UNCHANGED
  }

  /**
   * One object's fate.
   *
   * @param operand the operand it belongs to ("" for a live object no operand renders any more)
   * @param changes for updates: "path: old -> new" lines
   */
  public record Entry(
      String operand,
      String kind,
      String namespace,
      String name,
      Action action,
      List<String> changes) {
    /** kind/name, the way the plan prints objects. */
    public String ref() {
      return kind + "/" + name;
    }
  }

  /** The key objects are matched by. */
  public static String key(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + "/" + (ns == null ? "" : ns) + "/" + o.getMetadata().getName();
  }

  /**
   * The diff.
   *
   * @param rendered every operand as {@code Operands.renderAll} returns it
   * @param live the live objects that may match: rendered objects found on the cluster and every
   *     object with the ownership label; empty offline
   */
  public static List<Entry> diff(List<RenderedOperand> rendered, Collection<HasMetadata> live) {
    Map<String, HasMetadata> byKey = new LinkedHashMap<>();
    live.forEach(o -> byKey.put(key(o), o));
    Set<String> desiredKeys = new LinkedHashSet<>();
    List<Entry> out = new ArrayList<>();
    for (RenderedOperand op : rendered) {
      for (HasMetadata want : op.objects()) {
        String key = key(want);
        desiredKeys.add(key);
        HasMetadata have = byKey.get(key);
        Action action;
        List<String> changes = List.of();
        if (have == null) {
          action = Action.CREATE;
        } else if (ManagedObjects.upToDate(want, have)) {
          action = Action.UNCHANGED;
        } else {
          action = Action.UPDATE;
          changes = changes(want, have);
        }
        out.add(entry(op.name(), want, action, changes));
      }
    }
    for (HasMetadata have : live) {
      String operand = ManagedObjects.operandOf(have);
      if (!desiredKeys.contains(key(have)) && operand != null) {
        out.add(entry(operand, have, Action.DELETE, List.of()));
      }
    }
    return out;
  }

  /** The fields of {@code want} that differ in {@code have} (server-set fields are ignored). */
  @SuppressWarnings("unchecked")
  public static List<String> changes(HasMetadata want, HasMetadata have) {
    Map<String, Object> w = SERIALIZATION.convertValue(want, Map.class);
    Map<String, Object> h = SERIALIZATION.convertValue(have, Map.class);
    List<String> out = new ArrayList<>();
    Map<String, Object> wm = (Map<String, Object>) w.get("metadata");
    Map<String, Object> hm = (Map<String, Object>) h.getOrDefault("metadata", Map.of());
    for (String field : List.of("labels", "annotations")) {
      Map<String, Object> wl =
          new LinkedHashMap<>((Map<String, Object>) wm.getOrDefault(field, Map.of()));
      wl.remove(ManagedObjects.HASH_ANNOTATION);
      compare("metadata." + field, wl, hm.get(field), out);
    }
    for (var e : w.entrySet()) {
      if (!Set.of("metadata", "status", "apiVersion", "kind").contains(e.getKey())) {
        compare(e.getKey(), e.getValue(), h.get(e.getKey()), out);
      }
    }
    if (out.size() > MAX_CHANGES) {
      int more = out.size() - MAX_CHANGES;
      out = new ArrayList<>(out.subList(0, MAX_CHANGES));
      out.add("... and " + more + " more");
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void compare(String path, Object want, Object have, List<String> out) {
    if (want instanceof Map<?, ?> wm) {
      Map<String, Object> hm = have instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
      for (var e : ((Map<String, Object>) wm).entrySet()) {
        compare(path + "." + e.getKey(), e.getValue(), hm.get(e.getKey()), out);
      }
      return;
    }
    if (want instanceof List<?> wl && have instanceof List<?> hl && named(wl) && named(hl)) {
      Map<String, Object> hByName = new LinkedHashMap<>();
      hl.forEach(i -> hByName.put(String.valueOf(((Map<?, ?>) i).get("name")), i));
      Set<String> seen = new LinkedHashSet<>();
      for (Object item : wl) {
        String name = String.valueOf(((Map<?, ?>) item).get("name"));
        seen.add(name);
        Object match = hByName.get(name);
        if (match == null) {
          out.add(path + "[" + name + "]: added");
        } else {
          compare(path + "[" + name + "]", item, match, out);
        }
      }
      hByName.keySet().stream()
          .filter(n -> !seen.contains(n))
          .forEach(n -> out.add(path + "[" + n + "]: removed"));
      return;
    }
    if (want instanceof List<?> wl && have instanceof List<?> hl) {
      if (wl.size() == hl.size()) {
        for (int i = 0; i < wl.size(); i++) {
          compare(path + "[" + i + "]", wl.get(i), hl.get(i), out);
        }
        return;
      }
    }
    if (!equalScalars(want, have)) {
      out.add(path + ": " + show(have) + " -> " + show(want));
    }
  }

  private static boolean named(List<?> list) {
    return !list.isEmpty()
        && list.stream().allMatch(i -> i instanceof Map<?, ?> m && m.get("name") instanceof String);
  }

  private static boolean equalScalars(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return x.doubleValue() == y.doubleValue();
    }
    return Objects.equals(a, b);
  }

  private static String show(Object v) {
    if (v == null) {
      return "(none)";
    }
    String s = v instanceof String str ? "\"" + str + "\"" : SERIALIZATION.asJson(v);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  private static Entry entry(String operand, HasMetadata o, Action a, List<String> changes) {
    return new Entry(
        operand,
        o.getKind(),
        o.getMetadata().getNamespace(),
        o.getMetadata().getName(),
        a,
        changes);
  }
}
