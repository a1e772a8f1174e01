package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses how each simulated container runs, in this order: the node's behaviour overrides; this
 * project's agents, in-process, when the command line names a registered agent ({@code gpu-operator
 * validator --component driver}, or args {@code [validator, --component, driver]} without a
 * command); then NVIDIA's images by what they run under the original's contract ({@link
 * Entrypoint}): the entrypoint's marker files are waited for, and a program this project
 * reimplements and registers ({@code nvidia-validator}, {@code nvidia-device-plugin}, {@code
 * gpu-feature-discovery}, {@code config-manager}) runs in-process; everything else by declared
 * behaviour: NVIDIA's driver container becomes ready and writes {@code .driver-ctr-ready} like its
 * startup probe, the toolkit writes the runtime config and CDI spec, CUDA sample images complete,
 * init containers complete, other containers run and become ready.
 */
public final class ContainerRunners {
  /** The executable name of this project's image. */
  public static final String PROJECT_BINARY = "gpu-operator";

  /** The program NVIDIA's driver image runs; its startup probe writes {@code .driver-ctr-ready}. */
  static final String DRIVER_PROGRAM = "nvidia-driver";

  /** The program NVIDIA's toolkit image runs (after its entrypoint waited for the driver). */
  static final String TOOLKIT_PROGRAM = "nvidia-toolkit";

  /** Our toolkit agent's subcommand. */
  static final String TOOLKIT_AGENT = "toolkit";

  private final Map<String, InProcessContainerRunner> agents;
  private final Map<String, InProcessContainerRunner> programs;
  private final Duration readyAfter;

  private ContainerRunners(
      Map<String, InProcessContainerRunner> agents,
      Map<String, InProcessContainerRunner> programs,
      Duration readyAfter) {
    this.agents = Map.copyOf(agents);
    this.programs = Map.copyOf(programs);
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
    return new ImageContainerRunner(this, node);
  }

  /** The in-process runner of a program of NVIDIA's images, or null. */
  InProcessContainerRunner program(String name) {
    return programs.get(name);
  }

  /**
   * The declared behaviour of a container no override, agent or program claims: it waits for its
   * entrypoint's marker files, then NVIDIA's driver container becomes ready and writes {@code
   * .driver-ctr-ready} with the GPUDirect flags of its env (its startup probe's file), the toolkit
   * leaves the runtime config and CDI spec, CUDA samples complete, init containers complete and
   * other containers run.
   */
  DeclaredBehaviour declared(
      NodeDescription node, Container c, boolean init, Entrypoint ep, Map<String, String> env) {
    String image = c.getImage() == null ? "" : c.getImage().toLowerCase(Locale.ROOT);
    if (image.contains("cuda-sample") || image.contains("vectoradd")) {
      return DeclaredBehaviour.completes(Duration.ofMillis(500));
    }
    DeclaredBehaviour base =
        init
            ? DeclaredBehaviour.completes(Duration.ofMillis(100))
            : DeclaredBehaviour.runs(readyAfter);
    if (!init && DRIVER_PROGRAM.equals(ep.program()) && ep.args().contains("init")) {
      String flags =
          "GDRCOPY_ENABLED: "
              + env.getOrDefault("GDRCOPY_ENABLED", "false")
              + "\nGDS_ENABLED: "
              + env.getOrDefault("GDS_ENABLED", "false")
              + "\nGPU_DIRECT_RDMA_ENABLED: "
              + env.getOrDefault("GPU_DIRECT_RDMA_ENABLED", "false")
              + "\n";
      base =
          base.withFiles(
              Map.of(
                  KubeletConstants.HOST_VALIDATIONS + "/" + KubeletConstants.DRIVER_CONTAINER_READY,
                  flags,
                  KubeletConstants.PROC_MODULES,
                  driverModules(env)));
    } else if (!init
        && (TOOLKIT_PROGRAM.equals(ep.program()) || TOOLKIT_AGENT.equals(agentName(c)))) {
      // NVIDIA's toolkit, or ours when no in-process agent is registered for it.
      base = base.withFiles(ToolkitFiles.forNode(node));
    }
    return base.withWaitFor(ep.waits());
  }

  /**
   * The node's {@code /proc/modules} while NVIDIA's driver container runs: the driver's modules and
   * the GPUDirect ones its sidecars load when their feature is on (nvidia_fs for GDS, gdrdrv for
   * GDRCopy, nvidia_peermem for RDMA), so the validator's module checks see what a real node shows.
   */
  static String driverModules(Map<String, String> env) {
    StringBuilder out = new StringBuilder();
    List<String> modules = new ArrayList<>(List.of("nvidia", "nvidia_uvm", "nvidia_modeset"));
    if ("true".equals(env.get("GDS_ENABLED"))) {
      modules.add("nvidia_fs");
    }
    if ("true".equals(env.get("GDRCOPY_ENABLED"))) {
      modules.add("gdrdrv");
    }
    if ("true".equals(env.get("GPU_DIRECT_RDMA_ENABLED"))) {
      modules.add("nvidia_peermem");
    }
    for (String m : modules) {
      out.append(m).append(" 16384 0 - Live 0x0000000000000000\n");
    }
    return out.toString();
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

  /** Command followed by args: what the kubelet runs for the container. */
  public static List<String> commandLine(Container c) {
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
    private final Map<String, InProcessContainerRunner> programs = new LinkedHashMap<>();
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

    /**
     * Runs {@code agent} for containers of NVIDIA's images whose entrypoint executes {@code
     * program} (e.g. {@code nvidia-device-plugin}): our reimplementation stands in for NVIDIA's
     * program, with the container's environment as the original's contract sets it.
     */
    public Builder program(String program, InProcessAgent agent, boolean readyOnStart) {
      programs.put(program, new InProcessContainerRunner(program, agent, readyOnStart));
      return this;
    }

    /** Delay before a declared, long-running container is ready. */
    public Builder readyAfter(Duration delay) {
      this.readyAfter = delay;
      return this;
    }

    public ContainerRunners build() {
      return new ContainerRunners(agents, programs, readyAfter);
    }
  }
}
