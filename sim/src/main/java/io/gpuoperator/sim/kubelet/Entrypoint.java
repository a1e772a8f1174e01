package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a container of NVIDIA's images runs, read from its command line the way a shell would: the
 * program it ends up executing, the marker files it waits for first and whether it takes the
 * validated driver's root from {@code driver-ready}. A shell script given as a file (the original's
 * entrypoint ConfigMaps, mounted at {@code /bin/entrypoint.sh}) is read from its ConfigMap, so the
 * simulated container follows the same marker-file protocol as the real one.
 *
 * @param program the executable it runs (e.g. {@code nvidia-toolkit}, {@code nvidia-validator}), or
 *     null for a script that only waits and prints (an init loop, the validator's sleep loop)
 * @param args the program's arguments
 * @param waits marker files under {@code /run/nvidia/validations} it waits for, in order
 * @param sourcesDriverReady whether the script exports the lines of {@code driver-ready}
 */
public record Entrypoint(
    String program, List<String> args, List<String> waits, boolean sourcesDriverReady) {
  private static final Set<String> SHELLS = Set.of("sh", "bash");
  private static final Pattern WAIT_FOR_MARKER =
      Pattern.compile(
          "-f\\s+[\"']?" + Pattern.quote(KubeletConstants.HOST_VALIDATIONS) + "/([\\w.-]+)");
  private static final Pattern EXEC = Pattern.compile("(?m)^\\s*exec\\s+(\\S+)(.*)$");
  private static final Pattern SOURCE_DRIVER_READY =
      Pattern.compile(
          "(?m)^\\s*(\\.|source)\\s+"
              + Pattern.quote(KubeletConstants.HOST_VALIDATIONS)
              + "/driver-ready\\s*$");
  private static final Set<String> SHELL_WORDS =
      Set.of("until", "while", "if", "for", "echo", "sleep", "rm", "true", "set", "cat", "[");

  public Entrypoint {
    args = List.copyOf(args);
    waits = List.copyOf(waits);
  }

  /** Reads the container's entrypoint; a script file that cannot be read counts as unknown. */
  static Entrypoint of(ContainerContext ctx) {
    return of(ctx.container(), path -> script(ctx, path));
  }

  /** The same, with the script files given by {@code files} (path to content, or null). */
  static Entrypoint of(Container c, java.util.function.Function<String, String> files) {
    List<String> line = ContainerRunners.commandLine(c);
    if (line.isEmpty()) {
      return new Entrypoint(null, List.of(), List.of(), false);
    }
    String first = basename(line.get(0));
    if (SHELLS.contains(first) && line.size() >= 3 && line.get(1).matches("-[a-z]*c")) {
      String script = line.get(2).trim();
      if (script.matches("/\\S+")) {
        String text = files.apply(script);
        return text == null ? new Entrypoint(null, List.of(), List.of(), false) : parse(text);
      }
      return parse(script);
    }
    return new Entrypoint(first, line.subList(1, line.size()), List.of(), false);
  }

  /** A shell script's waits, driver-ready sourcing and final program. */
  static Entrypoint parse(String script) {
    Set<String> waits = new LinkedHashSet<>();
    Matcher m = WAIT_FOR_MARKER.matcher(script);
    while (m.find()) {
      waits.add(m.group(1));
    }
    String program = null;
    List<String> args = List.of();
    Matcher exec = EXEC.matcher(script);
    while (exec.find()) {
      program = basename(exec.group(1));
      args = words(exec.group(2));
    }
    if (program == null) {
      // A one-line command such as "nvidia-validator": the first word that is not the shell's.
      List<String> words = words(script.split("[;\\n]")[0]);
      if (!words.isEmpty() && !SHELL_WORDS.contains(words.get(0))) {
        program = basename(words.get(0));
        args = words.subList(1, words.size());
      }
    }
    return new Entrypoint(
        program, args, new ArrayList<>(waits), SOURCE_DRIVER_READY.matcher(script).find());
  }

  /** The content of a script file, from the ConfigMap mounted at its path; null if unknown. */
  private static String script(ContainerContext ctx, String path) {
    if (ctx.client() == null || ctx.container().getVolumeMounts() == null) {
      return null;
    }
    for (VolumeMount m : ctx.container().getVolumeMounts()) {
      if (!path.equals(m.getMountPath())) {
        continue;
      }
      Volume v =
          ctx.pod().getSpec().getVolumes().stream()
              .filter(x -> x.getName().equals(m.getName()))
              .findFirst()
              .orElse(null);
      if (v == null || v.getConfigMap() == null) {
        return null;
      }
      // A read that fails (an API server too busy to answer) fails the container's start, which
      // the pod worker retries, as a kubelet retries a ConfigMap volume it could not mount:
      // without the script the container would run as if its entrypoint had nothing to do.
      ConfigMap cm =
          ctx.client()
              .configMaps()
              .inNamespace(ctx.pod().getMetadata().getNamespace())
              .withName(v.getConfigMap().getName())
              .get();
      String key = m.getSubPath() == null ? basename(path) : m.getSubPath();
      return cm == null || cm.getData() == null ? null : cm.getData().get(key);
    }
    return null;
  }

  private static List<String> words(String s) {
    List<String> out = new ArrayList<>();
    for (String w : s.trim().split("\\s+")) {
      if (!w.isEmpty()) {
        out.add(w);
      }
    }
    return out;
  }

  private static String basename(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
