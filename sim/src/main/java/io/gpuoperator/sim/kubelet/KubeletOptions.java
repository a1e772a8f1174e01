package io.gpuoperator.sim.kubelet;

import java.time.Duration;

/**
 * Timings of a simulated kubelet. The defaults are a real kubelet's; tests shorten the back-off.
 *
 * @param leaseRenewInterval how often the node lease is renewed (kubelet: 10 s)
 * @param statusInterval how often node status is re-posted with a fresh heartbeat (kubelet: 5 min
 *     when unchanged; the lease is what keeps the node alive)
 * @param backOffBase first restart delay of a crashed container after the immediate first restart
 *     (kubelet: 10 s, doubling)
 * @param backOffMax restart delay cap (kubelet: 5 min)
 */
public record KubeletOptions(
    Duration leaseRenewInterval,
    Duration statusInterval,
    Duration backOffBase,
    Duration backOffMax) {

  public static KubeletOptions defaults() {
    return new KubeletOptions(
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5));
  }

  /**
   * For tests on one machine: a lease every 4 s and status every 30 s, so that under a 16 s
   * node-monitor grace period a stopped kubelet's node turns NotReady within a test's wait; a
   * restart back-off from 1 s capped at 2 s, so a crashing container restarts while a test waits.
   */
  public static KubeletOptions quick() {
    return new KubeletOptions(
        Duration.ofSeconds(4),
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2));
  }

  public KubeletOptions withLeaseRenewInterval(Duration interval) {
    return new KubeletOptions(interval, statusInterval, backOffBase, backOffMax);
  }

  /**
   * The Lease's {@code leaseDurationSeconds}: four renewals, as the kubelet renews every quarter of
   * its lease duration; never under the kubelet's default 40 s.
   */
  public int leaseDurationSeconds() {
    return (int)
        Math.max(KubeletConstants.LEASE_DURATION_SECONDS, 4 * leaseRenewInterval.toSeconds());
  }

  public KubeletOptions withBackOff(Duration base, Duration max) {
    return new KubeletOptions(leaseRenewInterval, statusInterval, base, max);
  }

  /** Delay before restart number {@code restarts + 1}: 0, base, 2*base ... capped. */
  public Duration backOff(int restarts) {
    if (restarts <= 0) {
      return Duration.ZERO;
    }
    long ms = backOffBase.toMillis() << Math.min(restarts - 1, 20);
    return Duration.ofMillis(Math.min(ms, backOffMax.toMillis()));
  }
}
