package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chooses how each simulated container runs, in this order: the node's behaviour overrides; this
 * project's agents, in-process, when the image is the project's and the command line names a
 * registered agent ({@code gpu-operator validator --component driver}); then declared behaviour:
 * NVIDIA's driver container becomes ready and writes {@code .driver-ctr-ready}, CUDA sample images
 * complete, shell loops waiting for {@code /run/nvidia/validations/<file>} wait for that file, init
 * containers complete, other containers run and become ready.
 */
public final class ContainerRunners {
  /** The executable name of this project's image. */
  public static final String PROJECT_BINARY = "gpu-operator";

  private static final Pattern WAIT_FOR_MARKER =
      Pattern.compile(
          "-f\\s+[\"']?" + Pattern.quote(KubeletConstants.HOST_VALIDATIONS) + "/([\\w.-]+)");

  private final Map<String, InProcessContainerRunner> agents;
  private final Duration readyAfter;

  private ContainerRunners(Map<String, InProcessContainerRunner> agents, Duration readyAfter) {
    this.agents = Map.copyOf(agents);
    this.readyAfter = readyAfter;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Declared behaviour only, containers ready after 200 ms. */
  public static ContainerRunners declaredOnly() {
    return builder().build();
  }

  /** The runner for one container of a pod on a node. */
  public ContainerRunner select(NodeDescription node, Pod pod, Container c, boolean init) {
    for (BehaviourOverride o : node.overrides()) {
      if (o.matches(pod, c)) {
        return new DeclaredContainerRunner(o.behaviour());
      }
    }
    if (isProjectImage(c.getImage())) {
      List<String> args = agentArgs(commandLine(c));
      if (!args.isEmpty() && agents.containsKey(args.get(0))) {
        return agents.get(args.get(0));
      }
    }
    return new DeclaredContainerRunner(declared(c, init));
  }

  /** The declared behaviour for a container no override or agent claims. */
  DeclaredBehaviour declared(Container c, boolean init) {
    String image = c.getImage() == null ? "" : c.getImage().toLowerCase(Locale.ROOT);
    if (image.contains("cuda-sample") || image.contains("vectoradd")) {
      return DeclaredBehaviour.completes(Duration.ofMillis(500));
    }
    if (!init && image.contains("nvidia/driver")) {
      // NVIDIA's driver container: "installs" the driver, then says so like its startup probe.
      return DeclaredBehaviour.runs(readyAfter)
          .withWrites(List.of(KubeletConstants.DRIVER_CONTAINER_READY));
    }
    List<String> waits = markersWaitedFor(c);
    DeclaredBehaviour base =
        init
            ? DeclaredBehaviour.completes(Duration.ofMillis(100))
            : DeclaredBehaviour.runs(readyAfter);
    return base.withWaitFor(waits);
  }

  /** Marker files a shell loop like {@code until [ -f /run/nvidia/validations/x ]} waits for. */
  static List<String> markersWaitedFor(Container c) {
    Set<String> out = new LinkedHashSet<>();
    for (String part : commandLine(c)) {
      Matcher m = WAIT_FOR_MARKER.matcher(part);
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return new ArrayList<>(out);
  }

  /** Whether the image is this project's own (its last path segment is gpu-operator). */
  static boolean isProjectImage(String image) {
    if (image == null) {
      return false;
    }
    String repo = image;
    int at = repo.indexOf('@');
    if (at >= 0) {
      repo = repo.substring(0, at);
    }
    int slash = repo.lastIndexOf('/');
    int colon = repo.lastIndexOf(':');
    if (colon > slash) {
      repo = repo.substring(0, colon);
    }
    return repo.substring(slash + 1).equals(PROJECT_BINARY);
  }

  /** Command followed by args. */
  static List<String> commandLine(Container c) {
    List<String> out = new ArrayList<>();
    if (c.getCommand() != null) {
      out.addAll(c.getCommand());
    }
    if (c.getArgs() != null) {
      out.addAll(c.getArgs());
    }
    return out;
  }

  /** The command line without a leading gpu-operator executable: [agent, args...]. */
  static List<String> agentArgs(List<String> line) {
    if (!line.isEmpty()) {
      String first = line.get(0);
      if (first.equals(PROJECT_BINARY) || first.endsWith("/" + PROJECT_BINARY)) {
        return line.subList(1, line.size());
      }
    }
    return line;
  }

  /** Registers agents and the default readiness delay. */
  public static final class Builder {
    private final Map<String, InProcessContainerRunner> agents = new LinkedHashMap<>();
    private Duration readyAfter = Duration.ofMillis(200);

    private Builder() {}

    /**
     * Runs {@code agent} for containers of the project's image whose command line starts with
     * {@code subcommand}. Short-lived agents (validators) are ready when they say so; pass {@code
     * readyOnStart} for daemons that have no readiness of their own.
     */
    public Builder agent(String subcommand, InProcessAgent agent, boolean readyOnStart) {
      agents.put(subcommand, new InProcessContainerRunner(subcommand, agent, readyOnStart));
      return this;
    }

    /** Delay before a declared, long-running container is ready. */
    public Builder readyAfter(Duration delay) {
      this.readyAfter = delay;
      return this;
    }

    public ContainerRunners build() {
      return new ContainerRunners(agents, readyAfter);
    }
  }
}
