package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NVIDIA's {@code config-manager} (from the device-plugin image) for simulated pods, with the
 * original's env contract: it makes {@code CONFIG_FILE_DST} this node's entry of the configs in
 * {@code CONFIG_FILE_SRCDIR}, named by the node label {@code NODE_LABEL}, else {@code
 * DEFAULT_CONFIG}, else an empty config when {@code FALLBACK_STRATEGIES} has {@code empty}; a name
 * without a config is an error. With {@code ONESHOT=true} it exits after the first pass (the init
 * container); otherwise it follows the label (the sidecar; the programs re-read the file).
 */
public final class ConfigManagerAgent implements InProcessAgent {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigManagerAgent.class);
  static final String EMPTY_CONFIG = "version: v1\n";

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = ctx.env();
    String label = env.getOrDefault("NODE_LABEL", "nvidia.com/device-plugin.config");
    Path src =
        ContainerPaths.resolve(ctx, env.getOrDefault("CONFIG_FILE_SRCDIR", "/available-configs"));
    Path dst =
        ContainerPaths.resolve(ctx, env.getOrDefault("CONFIG_FILE_DST", "/config/config.yaml"));
    boolean oneshot = Boolean.parseBoolean(env.getOrDefault("ONESHOT", "false"));
    String applied = null;
    while (true) {
      String name = wanted(ctx, label, env);
      if (!java.util.Objects.equals(name, applied) || !Files.exists(dst)) {
        String content;
        if (name == null) {
          if (!env.getOrDefault("FALLBACK_STRATEGIES", "").contains("empty")) {
            LOG.warn("config-manager on {}: no label {} and no default", ctx.nodeName(), label);
            return 1;
          }
          content = EMPTY_CONFIG;
        } else {
          Path file = src.resolve(name);
          if (!Files.isRegularFile(file)) {
            LOG.warn("config-manager on {}: no config named '{}' in {}", ctx.nodeName(), name, src);
            return 1;
          }
          content = Files.readString(file);
        }
        ContainerPaths.writeAtomically(dst, content);
        applied = name;
        LOG.debug(
            "config-manager on {}: config {}", ctx.nodeName(), name == null ? "(empty)" : name);
      }
      if (oneshot) {
        return 0;
      }
      ctx.markReady();
      Thread.sleep(1000);
    }
  }

  /** The config the node asks for: its label, else the default, else null. */
  private static String wanted(AgentContext ctx, String label, Map<String, String> env) {
    Node node = ctx.client().nodes().withName(ctx.nodeName()).get();
    String value =
        node == null || node.getMetadata().getLabels() == null
            ? null
            : node.getMetadata().getLabels().get(label);
    if (value != null && !value.isBlank()) {
      return value.trim();
    }
    String def = env.get("DEFAULT_CONFIG");
    return def == null || def.isBlank() ? null : def.trim();
  }
}
