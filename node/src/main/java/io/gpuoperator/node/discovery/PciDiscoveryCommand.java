package io.gpuoperator.node.discovery;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.sim.NodeProfile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code gpu-operator pci-discovery}: labels this node {@code
 * nvidia.com/gpu.pci.present=true|false} from its PCI devices, so that a cluster without NFD finds
 * its GPU nodes.
 */
@Command(
    name = "pci-discovery",
    modelTransformer = PciDiscoveryCommand.Options.class,
    header =
        "Labels this node nvidia.com/gpu.pci.present from its PCI devices (clusters without NFD).",
    description = {
      "Reads <sysfs>/bus/pci/devices (vendor 0x10de, class 0300 or 0302), without NVML or a"
          + " driver, and writes nvidia.com/gpu.pci.present=true or false on its Node; then waits"
          + " to be stopped (the operator's DaemonSet selects only nodes without the label). With"
          + " the simulated backend, the node profile's GPUs stand for the PCI devices."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:labelled (--oneshot)",
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:sysfs or the cluster failed",
      "2:bad input: a flag or variable (the message names it)"
    })
public class PciDiscoveryCommand extends AgentCommand {
  /** sysfs root with {@code bus/pci/devices}. */
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", Parse::path)
          .env("PCI_SYSFS_ROOT")
          .label("DIR")
          .help("sysfs root whose bus/pci/devices is read.")
          .orElse(Path.of("/sys"));

  /** Label once and exit. */
  public static final Setting<Boolean> ONESHOT =
      Setting.bool("--oneshot")
          .env("PCI_DISCOVERY_ONESHOT")
          .help("Label once and exit instead of waiting to be stopped.")
          .orElse(false);

  /** The options: the node, the cluster, sysfs. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(
          group(
              "PCI discovery:",
              List.of(
                  SYSFS_ROOT,
                  ONESHOT,
                  NodeAgentOptions.NODE_NAME,
                  NodeAgentOptions.BACKEND,
                  NodeAgentOptions.NODE_PROFILE,
                  NodeAgentOptions.KUBECONFIG)));
    }
  }

  @Override
  public Integer call() throws Exception {
    Settings s = SettingOptions.settings(spec, env, null);
    String node = NodeAgentOptions.nodeName(s);
    if (node == null) {
      throw new ConfigException("--node-name (or NODE_NAME) is required");
    }
    try (KubernetesClient client = NodeAgentOptions.client(s, "pci-discovery")) {
      if ("simulated".equals(s.get(NodeAgentOptions.BACKEND))) {
        NodeProfile profile = NodeAgentOptions.profile(s, null);
        PciDiscovery.label(
            client,
            node,
            simulatedValue(profile),
            profile.gpuCount() + " simulated GPUs (node profile)");
      } else {
        PciDiscovery.label(client, node, s.get(SYSFS_ROOT));
      }
    } catch (IOException e) {
      throw new EnvironmentException("PCI discovery failed: " + e.getMessage(), e);
    }
    if (!s.get(ONESHOT)) {
      // The DaemonSet controller removes this pod once the label is there; until then, idle.
      new CountDownLatch(1).await();
    }
    return 0;
  }

  /**
   * The label value on simulated hardware, which has no PCI devices in sysfs: whether its node
   * profile has a GPU.
   */
  static String simulatedValue(NodeProfile profile) {
    return Boolean.toString(profile.gpuCount() > 0);
  }
}
