package io.gpuoperator.node.deviceplugin;

import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which XIDs make a device unhealthy. Ignored by default: the original's list (13, 31, 43, 45, 68,
 * 109) and XIDs whose documented action is only to restart the application (94, contained ECC
 * error). {@code DP_DISABLE_HEALTHCHECKS} = {@code all} or {@code xids} turns checks off, or lists
 * more XIDs to ignore; {@code DP_ENABLE_HEALTHCHECKS} lists XIDs that count even so ({@code all}:
 * every XID).
 */
public final class XidPolicy {
  /** The original's hard-coded ignore list: application errors, the GPU stays healthy. */
  public static final Set<Long> DEFAULT_IGNORED = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

  /** XIDs whose documented action is "restart the application", not the GPU. */
  public static final Set<Long> APPLICATION_ONLY = Set.of(94L);

  private final boolean disabledAll;
  private final boolean enabledAll;
  private final Set<Long> disabled;
  private final Set<Long> enabled;

  private XidPolicy(
      boolean disabledAll, boolean enabledAll, Set<Long> disabled, Set<Long> enabled) {
    this.disabledAll = disabledAll;
    this.enabledAll = enabledAll;
    this.disabled = Set.copyOf(disabled);
    this.enabled = Set.copyOf(enabled);
  }

  /** The default policy. */
  public static XidPolicy defaults() {
    return new XidPolicy(false, false, Set.of(), Set.of());
  }

  /** The policy of an environment; a malformed value is an error naming the variable. */
  public static XidPolicy fromEnv(Map<String, String> env) {
    Set<Long> disabled = new HashSet<>();
    Set<Long> enabled = new HashSet<>();
    boolean disabledAll = parse(PluginNames.ENV_DISABLE_HEALTHCHECKS, env, disabled);
    boolean enabledAll = parse(PluginNames.ENV_ENABLE_HEALTHCHECKS, env, enabled);
    return new XidPolicy(disabledAll, enabledAll, disabled, enabled);
  }

  private static boolean parse(String name, Map<String, String> env, Set<Long> into) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return false;
    }
    boolean all = false;
    for (String part : value.toLowerCase(Locale.ROOT).split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      if (p.equals("all") || p.equals("xids")) {
        all = true;
        continue;
      }
      try {
        into.add(Long.parseLong(p));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            name
                + ": '"
                + p
                + "' is not an XID; expected all, xids, or a comma-separated list of XID numbers");
      }
    }
    return all;
  }

  /** True when no XID can ever make a device unhealthy: no need to watch events. */
  public boolean checksDisabled() {
    return disabledAll && !enabledAll && enabled.isEmpty();
  }

  /** True when the XID marks the device unhealthy. */
  public boolean critical(long xid) {
    if (enabledAll || enabled.contains(xid)) {
      return true;
    }
    if (disabledAll || disabled.contains(xid)) {
      return false;
    }
    return !DEFAULT_IGNORED.contains(xid) && !APPLICATION_ONLY.contains(xid);
  }
}
