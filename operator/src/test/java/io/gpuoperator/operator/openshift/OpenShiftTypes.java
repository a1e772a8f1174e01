package io.gpuoperator.operator.openshift;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Reads an object strictly as an OpenShift API type (fabric8's openshift-model): every field must
 * be one the type declares, at every depth. fabric8's types keep unknown fields in {@code
 * additionalProperties} instead of failing, so a misspelt or misplaced field would otherwise pass
 * unnoticed; here it is reported with its path.
 */
public final class OpenShiftTypes {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private OpenShiftTypes() {}

  /** The object as {@code type}, failing on any field the type does not declare. */
  public static <T> T strict(Object object, Class<T> type) {
    T typed = SERIALIZATION.convertValue(object, type);
    List<String> unknown = new ArrayList<>();
    walk(typed, type.getSimpleName(), unknown);
    assertThat(unknown).as("fields " + type.getSimpleName() + " does not declare").isEmpty();
    return typed;
  }

  private static void walk(Object value, String path, List<String> unknown) {
    if (value == null) {
      return;
    }
    if (value instanceof Collection<?> list) {
      int i = 0;
      for (Object item : list) {
        walk(item, path + "[" + i++ + "]", unknown);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      // A map-valued field (labels, annotations, CRD properties): its keys are data.
      map.forEach((k, v) -> walk(v, path + "." + k, unknown));
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Class<?> c = value.getClass(); c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        f.setAccessible(true);
        Object field;
        try {
          field = f.get(value);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
        if (f.getName().equals("additionalProperties") && field instanceof Map<?, ?> extra) {
          extra.keySet().forEach(k -> unknown.add(path + "." + k));
        } else {
          walk(field, path + "." + f.getName(), unknown);
        }
      }
    }
  }
}
