package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;

/**
 * Assertions of the contract tests (the original's and the sandbox operands'): a container's
 * command, args and env in order, and its mounts and the pod's volumes as short strings, so that a
 * test reads like the contract it checks.
 */
final class ContractAssertions {
  /** An expected env value: any value from a fieldRef. */
  static final String FIELD = "<fieldRef>";

  /** An expected env value: any literal value. */
  static final String ANY = "<any>";

  private ContractAssertions() {}

  static Container container(PodSpec pod, String name) {
    return DaemonSets.container(pod, name);
  }

  static void expect(Container c, List<String> command, List<String> args) {
    assertThat(c.getCommand() == null ? List.<String>of() : c.getCommand())
        .as(c.getName() + " command")
        .containsExactlyElementsOf(command);
    assertThat(c.getArgs() == null ? List.<String>of() : c.getArgs())
        .as(c.getName() + " args")
        .containsExactlyElementsOf(args);
  }

  /** The container's env, in order: name, then the value ({@link #FIELD}, {@link #ANY}). */
  static void expectEnv(Container c, String... nameThenValue) {
    List<EnvVar> env = c.getEnv() == null ? List.of() : c.getEnv();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < nameThenValue.length; i += 2) {
      names.add(nameThenValue[i]);
    }
    assertThat(env)
        .as(c.getName() + " env names")
        .extracting(EnvVar::getName)
        .containsExactlyElementsOf(names);
    for (int i = 0; i < nameThenValue.length; i += 2) {
      EnvVar e = env.get(i / 2);
      String want = nameThenValue[i + 1];
      if (want.equals(FIELD)) {
        assertThat(e.getValueFrom()).as(c.getName() + " " + e.getName()).isNotNull();
      } else if (!want.equals(ANY)) {
        assertThat(e.getValue()).as(c.getName() + " " + e.getName()).isEqualTo(want);
      }
    }
  }

  /**
   * The env the original's manifests give k8s-driver-manager first (operand-contracts 3.1, 3.13),
   * with {@code podEviction} as ENABLE_GPU_POD_EVICTION, then {@code more}: for {@link #expectEnv}.
   */
  static String[] driverManagerEnv(String podEviction, String... more) {
    return concat(
        List.of(
            "NODE_NAME",
            FIELD,
            "NVIDIA_VISIBLE_DEVICES",
            "void",
            "ENABLE_GPU_POD_EVICTION",
            podEviction,
            "ENABLE_AUTO_DRAIN",
            "false"),
        more);
  }

  static String[] concat(List<String> first, String... more) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  /** The value of the container's env variable {@code name}, which must be set. */
  static String value(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  /** "volume:path[:ro][:propagation]" per mount, in order. */
  static List<String> mounts(Container c) {
    List<String> out = new ArrayList<>();
    for (VolumeMount m : c.getVolumeMounts()) {
      String s = m.getName() + ":" + m.getMountPath();
      if (Boolean.TRUE.equals(m.getReadOnly())) {
        s += ":ro";
      }
      if (m.getMountPropagation() != null) {
        s += ":" + m.getMountPropagation();
      }
      out.add(s);
    }
    return out;
  }

  /** "volume:hostPath[:type]" or "volume:configMap:name" per volume, in order. */
  static List<String> volumes(PodSpec pod) {
    List<String> out = new ArrayList<>();
    for (Volume v : pod.getVolumes()) {
      if (v.getHostPath() != null) {
        String type = v.getHostPath().getType();
        out.add(
            v.getName()
                + ":"
                + v.getHostPath().getPath()
                + (type == null || type.isEmpty() ? "" : ":" + type));
      } else if (v.getConfigMap() != null) {
        out.add(v.getName() + ":configMap:" + v.getConfigMap().getName());
      } else {
        out.add(v.getName());
      }
    }
    return out;
  }
}
