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
 * project's agents, in-process, when the command line names a registered agent ({@code gpu-operator
 * validator --component driver}, or args {@code [validator, --component, driver]} without a
 * command); then declared behaviour: NVIDIA's driver container becomes ready and writes {@code
 * .driver-ctr-ready}, CUDA sample images complete, shell loops waiting for {@code
 * /run/nvidia/validations/<file>} wait for that file, init containers complete, other containers
 * run and become ready.
 */
public final class ContainerRunners {
  /** The executable name of this project's image. */
  public static final String PROJECT_BINARY = "gpu-operator";

  /** The toolkit agent's subcommand. */
  public static final String TOOLKIT_AGENT = "toolkit";

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
    String agent = agentName(c);
    if (agent != null && agents.containsKey(agent)) {
      return agents.get(agent);
    }
    return new DeclaredContainerRunner(declared(node, c, init));
  }

  /** The declared behaviour for a container no override or agent claims. */
  DeclaredBehaviour declared(NodeDescription node, Container c, boolean init) {
    String image = c.getImage() == null ? "" : c.getImage().toLowerCase(Locale.ROOT);
    if (image.contains("cuda-sample") || image.contains("vectoradd")) {
      return DeclaredBehaviour.completes(Duration.ofMillis(500));
    }
    if (!init && image.contains("nvidia/driver")) {
      // NVIDIA's driver container: "installs" the driver, then says so like its startup probe.
      return DeclaredBehaviour.runs(readyAfter)
          .withWrites(List.of(KubeletConstants.DRIVER_CONTAINER_READY));
    }
    if (!init && TOOLKIT_AGENT.equals(agentName(c))) {
      // Our toolkit agent when no in-process agent is registered (declared-only runners): leave
      // what it would write on the node.
      return DeclaredBehaviour.runs(readyAfter).withFiles(ToolkitFiles.forNode(node));
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

  /**
   * The agent a container runs, when its command line is this project's: {@code gpu-operator
   * <agent> ...}, or no command (the image's entrypoint) and args starting with the agent's name.
   * The image does not matter: the operator runs our agents on whatever images the ClusterPolicy
   * names (NVIDIA's, in the upstream sample).
   */
  static String agentName(Container c) {
    List<String> command = c.getCommand() == null ? List.of() : c.getCommand();
    List<String> line = commandLine(c);
    if (!command.isEmpty() && !isProjectBinary(command.get(0))) {
      return null;
    }
    List<String> args = agentArgs(line);
    return args.isEmpty() ? null : args.get(0);
  }

  private static boolean isProjectBinary(String executable) {
    return executable.equals(PROJECT_BINARY) || executable.endsWith("/" + PROJECT_BINARY);
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
      if (isProjectBinary(first)) {
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
