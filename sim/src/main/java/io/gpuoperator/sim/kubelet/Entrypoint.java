package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 * @param gate a check of a marker's content after which the script may exit 0 without its later
 *     waits (the sandbox device plugins' init containers), or null
 */
public record Entrypoint(
    String program, List<String> args, List<String> waits, boolean sourcesDriverReady, Gate gate) {
  /**
   * NVIDIA's images whose manifests give no command, by repository name: the program their image
   * runs (the Dockerfile's ENTRYPOINT or CMD), which then gets the container's args.
   */
  static final Map<String, String> IMAGE_PROGRAMS =
      Map.of(
          "kubevirt-gpu-device-plugin", "nvidia-kubevirt-gpu-device-plugin",
          "vgpu-device-manager", "nvidia-k8s-vgpu-dm");

  /**
   * The vGPU manager's container: its image (the licensee's vGPU host driver) runs a program also
   * called {@code nvidia-driver}, but a different one from the driver image's; this name tells the
   * two apart.
   */
  static final String VGPU_MANAGER_CONTAINER = "nvidia-vgpu-manager-ctr";

  /** What the vGPU manager's {@code nvidia-driver} is called here. */
  public static final String VGPU_MANAGER_PROGRAM = "nvidia-vgpu-manager";

  /**
   * A shell test of a marker's content ({@code if [ "$(cat <marker>)" != "<value>" ]; then ... exit
   * 0; fi}): unless the marker holds {@code value}, the script ends without {@code waits}.
   */
  public record Gate(String marker, String value, List<String> waits) {
    public Gate {
      waits = List.copyOf(waits);
    }
  }

  private static final Set<String> SHELLS = Set.of("sh", "bash");
  private static final Pattern WAIT_FOR_MARKER =
      Pattern.compile(
          "-f\\s+[\"']?" + Pattern.quote(KubeletConstants.HOST_VALIDATIONS) + "/([\\w.-]+)");
  private static final Pattern UNTIL = Pattern.compile("(?s)\\buntil\\s+(.+?);\\s*do\\b");
  private static final Pattern GATE =
      Pattern.compile(
          "(?s)\\bif\\s+\\[\\s+\"\\$\\(cat\\s+"
              + Pattern.quote(KubeletConstants.HOST_VALIDATIONS)
              + "/([\\w.-]+)\\)\"\\s+!=\\s+\"([^\"]+)\"\\s+\\];\\s*then\\b[^\\n]*?\\bexit\\s+0\\b");
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

  public Entrypoint(
      String program, List<String> args, List<String> waits, boolean sourcesDriverReady) {
    this(program, args, waits, sourcesDriverReady, null);
  }

  /**
   * Whether a wait is satisfied: its marker exists under {@code validations}; a wait of
   * alternatives ({@code a|b}, from {@code until [ -f a ] || [ -f b ]}) when one of them does.
   */
  public static boolean present(Path validations, String wait) {
    for (String marker : wait.split("\\|")) {
      if (Files.exists(validations.resolve(marker))) {
        return true;
      }
    }
    return false;
  }

  /** Reads the container's entrypoint; a script file that cannot be read counts as unknown. */
  static Entrypoint of(ContainerContext ctx) {
    return of(ctx.container(), path -> script(ctx, path));
  }

  /** The same, with the script files given by {@code files} (path to content, or null). */
  static Entrypoint of(Container c, java.util.function.Function<String, String> files) {
    List<String> line = ContainerRunners.commandLine(c);
    String imageProgram = IMAGE_PROGRAMS.get(repository(c.getImage()));
    if ((c.getCommand() == null || c.getCommand().isEmpty()) && imageProgram != null) {
      return new Entrypoint(imageProgram, line, List.of(), false);
    }
    if (line.isEmpty()) {
      return new Entrypoint(null, List.of(), List.of(), false);
    }
    String first = basename(line.get(0));
    if (first.equals(ContainerRunners.DRIVER_PROGRAM)
        && VGPU_MANAGER_CONTAINER.equals(c.getName())) {
      first = VGPU_MANAGER_PROGRAM;
    }
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

  /** A shell script's waits, driver-ready sourcing, gate and final program. */
  static Entrypoint parse(String script) {
    // Loop conditions with alternatives: their markers make one wait, a|b.
    List<int[]> alternatives = new ArrayList<>();
    Matcher until = UNTIL.matcher(script);
    while (until.find()) {
      if (until.group(1).contains("||")) {
        alternatives.add(new int[] {until.start(1), until.end(1)});
      }
    }
    Matcher gateMatch = GATE.matcher(script);
    int gateAt = gateMatch.find() ? gateMatch.start() : Integer.MAX_VALUE;
    Set<String> waits = new LinkedHashSet<>();
    Set<String> gated = new LinkedHashSet<>();
    Map<int[], List<String>> groups = new java.util.LinkedHashMap<>();
    Matcher m = WAIT_FOR_MARKER.matcher(script);
    while (m.find()) {
      int at = m.start();
      int[] group =
          alternatives.stream().filter(r -> r[0] <= at && at < r[1]).findFirst().orElse(null);
      if (group != null) {
        groups.computeIfAbsent(group, k -> new ArrayList<>()).add(m.group(1));
        continue;
      }
      (at < gateAt ? waits : gated).add(m.group(1));
    }
    groups.forEach((r, markers) -> (r[0] < gateAt ? waits : gated).add(String.join("|", markers)));
    Gate gate =
        gateAt == Integer.MAX_VALUE
            ? null
            : new Gate(gateMatch.group(1), gateMatch.group(2), new ArrayList<>(gated));
    if (gate == null) {
      waits.addAll(gated);
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
      List<String> words = words(script.split("[;\\n]|&&")[0]);
      if (!words.isEmpty() && !SHELL_WORDS.contains(words.get(0))) {
        program = basename(words.get(0));
        args = words.subList(1, words.size());
      }
    }
    return new Entrypoint(
        program, args, new ArrayList<>(waits), SOURCE_DRIVER_READY.matcher(script).find(), gate);
  }

  /** An image's repository name: {@code nvcr.io/nvidia/x:v1} is {@code x}. */
  static String repository(String image) {
    if (image == null) {
      return "";
    }
    String s = image;
    int at = s.indexOf('@');
    s = at < 0 ? s : s.substring(0, at);
    int slash = s.lastIndexOf('/');
    int colon = s.lastIndexOf(':');
    s = colon > slash ? s.substring(0, colon) : s;
    return s.substring(slash + 1);
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
