package io.gpuoperator.sim.controlplane;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The control plane's flags for a cluster of a given size, as an operator of a real cluster that
 * size sets them: Kubernetes' defaults suit up to about 100 nodes; above that the
 * controller-manager and scheduler would be held back by their client rate limits (a DaemonSet
 * rollout to 1,000 nodes is thousands of pod creations and bindings, each with an Event), and the
 * API server's concurrency limit would queue the nodes' heartbeats behind the rollout. The watch
 * cache needs no flag: it is on for every resource and sized dynamically.
 *
 * @param apiServerArgs added to kube-apiserver's command line
 * @param controllerManagerArgs added to kube-controller-manager's
 * @param schedulerArgs added to kube-scheduler's
 * @param auditsNodeStatus whether the audit log records the nodes' lease renewals and pod status
 *     patches: below the threshold it records every write; above it those two, which are most of a
 *     large cluster's writes and about a sixth of the API server's CPU when audited, are left out
 *     (what tests and benchmarks count, the operator's and the agents' writes, stays)
 * @param heartbeatScale how many times further apart than Kubernetes' defaults the nodes' lease
 *     renewals may be, with the controller-manager's grace period stretched alike (1 up to the
 *     threshold, 4 at 1,000 nodes): see {@link #heartbeat(Duration)}
 */
public record ControlPlaneSizing(
    List<String> apiServerArgs,
    List<String> controllerManagerArgs,
    List<String> schedulerArgs,
    boolean auditsNodeStatus,
    double heartbeatScale) {

  private static final Pattern SECONDS = Pattern.compile("(\\d+)s");

  /** Up to this many nodes every component keeps Kubernetes' defaults. */
  public static final int DEFAULTS_UP_TO = 100;

  /**
   * The flags for {@code nodes} nodes. Above {@value #DEFAULTS_UP_TO}: the API server's in-flight
   * limits (defaults 400 reads, 200 writes; with API Priority and Fairness their sum is the total
   * concurrency, shared out among the priority levels) grow with the size up to four times the
   * defaults at 1,000 nodes; the controller-manager's client QPS and burst (defaults 20 and 30) and
   * the scheduler's (50 and 100) grow the same way, capped at 100/200 and 200/400; the
   * controller-manager's DaemonSet workers (default 2) grow to 5, as an operand rollout is one
   * DaemonSet sync per operand.
   */
  public static ControlPlaneSizing forNodes(int nodes) {
    if (nodes <= DEFAULTS_UP_TO) {
      return new ControlPlaneSizing(List.of(), List.of(), List.of(), true, 1.0);
    }
    // 1 at 100 nodes, 4 at 1,000 and above: in-between sizes in proportion.
    double f = Math.min(4.0, 1.0 + 3.0 * (nodes - DEFAULTS_UP_TO) / 900.0);
    int kcmQps = (int) Math.min(100, Math.round(20 * f * 1.25));
    int schedulerQps = (int) Math.min(200, Math.round(50 * f));
    return new ControlPlaneSizing(
        List.of(
            "--max-requests-inflight=" + Math.round(400 * f),
            "--max-mutating-requests-inflight=" + Math.round(200 * f)),
        List.of(
            "--kube-api-qps=" + kcmQps,
            "--kube-api-burst=" + 2 * kcmQps,
            "--concurrent-daemonset-syncs=" + (nodes >= 500 ? 5 : 2)),
        // Deprecated flags that still work when no --config is given (we give none).
        List.of("--kube-api-qps=" + schedulerQps, "--kube-api-burst=" + 2 * schedulerQps),
        false,
        f);
  }

  /**
   * A heartbeat interval (the kubelets' lease renewal) or the controller-manager's {@code
   * --node-monitor-grace-period}, stretched for the size. Lease renewals are most of an idle
   * cluster's requests and a third of a rollout's (a real kubelet renews every 10 s: 100 writes a
   * second at 1,000 nodes, each one a watch event for the node-lifecycle controller); a real
   * cluster's operator lengthens them the same way, with the kubelets' {@code
   * nodeLeaseDurationSeconds} (renewed every quarter of it) and the controller-manager's grace
   * period together, so a node still goes NotReady after the same number of missed renewals.
   */
  public Duration heartbeat(Duration interval) {
    return Duration.ofMillis(Math.round(interval.toMillis() * heartbeatScale));
  }

  /**
   * {@link #heartbeat(Duration)} of a grace period in the flag's whole-seconds form ({@code
   * "40s"}); any other form is returned as given.
   */
  public String heartbeat(String gracePeriod) {
    Matcher m = SECONDS.matcher(gracePeriod);
    if (heartbeatScale == 1.0 || !m.matches()) {
      return gracePeriod;
    }
    return heartbeat(Duration.ofSeconds(Long.parseLong(m.group(1)))).toSeconds() + "s";
  }
}
