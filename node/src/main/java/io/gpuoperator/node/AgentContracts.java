package io.gpuoperator.node;

import io.gpuoperator.config.Setting;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.deviceplugin.DevicePluginSettings;
import io.gpuoperator.node.discovery.DiscoverySettings;
import io.gpuoperator.node.dra.DraPluginSettings;
import io.gpuoperator.node.exporter.ExporterSettings;
import io.gpuoperator.node.mig.MigManagerCommand;
import io.gpuoperator.node.toolkit.ToolkitSettings;
import io.gpuoperator.node.validator.ValidatorConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What each agent subcommand reads from its environment, by subcommand: the one contract between
 * the operator, which renders the variables, and the agent, which parses them. The variables are
 * the agents' own {@link Setting}s (name, type, default); the operator writes a value with the
 * setting's {@link Setting#text} and a test reads every rendered variable back with the setting's
 * parser, so a name or a type cannot drift on one side only.
 */
public final class AgentContracts {
  /** The NVIDIA runtime's: {@code all} lets the container see every MIG device. */
  public static final String MIG_MONITOR_DEVICES = "NVIDIA_MIG_MONITOR_DEVICES";

  /**
   * The NVIDIA runtime's: {@code all} gives the container the MIG config capability (creating and
   * destroying GPU and compute instances), for a container with {@code CAP_SYS_ADMIN}.
   */
  public static final String MIG_CONFIG_DEVICES = "NVIDIA_MIG_CONFIG_DEVICES";

  /**
   * Variables a container of ours is given that no agent reads: the NVIDIA container runtime's
   * (which GPUs, which driver capabilities, MIG monitoring) act before the process starts.
   */
  public static final Set<String> RUNTIME_ENV =
      Set.of(
          "NVIDIA_VISIBLE_DEVICES",
          "NVIDIA_DRIVER_CAPABILITIES",
          MIG_MONITOR_DEVICES,
          MIG_CONFIG_DEVICES);

  /** An agent's contract: its subcommand and every setting it reads. */
  public record Contract(String subcommand, List<Setting<?>> settings) {
    public Contract {
      settings = List.copyOf(settings);
    }

    /** The setting read from {@code variable}, if any. */
    public Optional<Setting<?>> byEnv(String variable) {
      return settings.stream().filter(s -> s.env().contains(variable)).findFirst();
    }
  }

  private static final Map<String, Contract> BY_SUBCOMMAND = new LinkedHashMap<>();

  static {
    add("device-plugin", DevicePluginSettings.ALL, NodeAgentOptions.ALL);
    add("feature-discovery", DiscoverySettings.ALL, NodeAgentOptions.ALL);
    add("dra-plugin", DraPluginSettings.ALL, NodeAgentOptions.ALL);
    add("exporter", ExporterSettings.ALL, NodeAgentOptions.GPU_ONLY);
    add("mig-manager", MigManagerCommand.ALL, NodeAgentOptions.ALL);
    add("validator", ValidatorConfig.ALL, NodeAgentOptions.ALL);
    add("toolkit", ToolkitSettings.Setting.contract(), List.of());
    add("node-agents", NodeAgentOptions.ALL, List.of());
  }

  private AgentContracts() {}

  @SafeVarargs
  private static void add(String subcommand, List<Setting<?>>... parts) {
    List<Setting<?>> all = new ArrayList<>();
    for (List<Setting<?>> p : parts) {
      all.addAll(p);
    }
    BY_SUBCOMMAND.put(subcommand, new Contract(subcommand, all));
  }

  /** The contract of a subcommand, if it is an agent. */
  public static Optional<Contract> of(String subcommand) {
    return Optional.ofNullable(BY_SUBCOMMAND.get(subcommand));
  }

  /** Every agent's contract. */
  public static List<Contract> all() {
    return List.copyOf(BY_SUBCOMMAND.values());
  }
}
