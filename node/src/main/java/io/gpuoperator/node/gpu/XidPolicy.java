package io.gpuoperator.node.gpu;

import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.Values;
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

  /** XIDs that no longer make a device unhealthy: {@code all}/{@code xids}, or a list. */
  public static final Setting<Xids> DISABLE_HEALTHCHECKS =
      Setting.of(null, XidPolicy::xids).env("DP_DISABLE_HEALTHCHECKS");

  /** XIDs that make a device unhealthy even so: {@code all}, or a list. */
  public static final Setting<Xids> ENABLE_HEALTHCHECKS =
      Setting.of(null, XidPolicy::xids).env("DP_ENABLE_HEALTHCHECKS");

  /** A parsed list: every XID, or these. */
  public record Xids(boolean all, Set<Long> ids) {}

  /** The policy the settings give; a malformed value is an error naming the variable. */
  public static XidPolicy from(Settings s) {
    Xids disabled = s.get(DISABLE_HEALTHCHECKS);
    Xids enabled = s.get(ENABLE_HEALTHCHECKS);
    return new XidPolicy(
        disabled != null && disabled.all(),
        enabled != null && enabled.all(),
        disabled == null ? Set.of() : disabled.ids(),
        enabled == null ? Set.of() : enabled.ids());
  }

  /** The policy of an environment (tests and in-process agents). */
  public static XidPolicy fromEnv(Map<String, String> env) {
    return from(Settings.ofEnv(env));
  }

  private static Xids xids(String value) {
    Set<Long> ids = new HashSet<>();
    boolean all = false;
    for (String part : value.toLowerCase(Locale.ROOT).split(",")) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      if (p.equals("all") || p.equals("xids")) {
        all = true;
        continue;
      }
      long xid;
      try {
        xid = Long.parseLong(p);
      } catch (NumberFormatException e) {
        xid = -1;
      }
      if (xid < 1 || xid > MAX_XID) {
        throw new IllegalArgumentException(
            Values.quote(part.strip())
                + " is not an XID; expected all, xids, or a comma-separated list of XID numbers"
                + " from 1 to "
                + MAX_XID);
      }
      ids.add(xid);
    }
    return new Xids(all, Set.copyOf(ids));
  }

  /** XIDs are small positive numbers; NVML reports them as an unsigned 32-bit value. */
  static final long MAX_XID = 4_294_967_295L;

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
