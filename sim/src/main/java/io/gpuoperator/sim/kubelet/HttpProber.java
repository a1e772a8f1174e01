package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's prober for the HTTP probes ({@code httpGet}) of a container whose in-process agent
 * published the ports they name ({@link ContainerProcess#publishPort}): simulated containers share
 * this machine's network, so an agent listens on a free port of 127.0.0.1 and says which of its
 * container ports that is. Once every probe's port is published, the probes decide as the kubelet's
 * do: the startup probe first (failing {@code failureThreshold} times kills the container), then
 * readiness ({@code successThreshold} successes make it ready, {@code failureThreshold} failures
 * unready; without a readiness probe it is ready once started) and liveness (failing {@code
 * failureThreshold} times kills it, so {@code restartPolicy} restarts it). A status 200-399 is a
 * success, anything else or no answer within {@code timeoutSeconds} a failure. Containers that
 * publish nothing keep the readiness their runner declares.
 */
final class HttpProber {
  private static final Logger LOG = LoggerFactory.getLogger(HttpProber.class);

  private final String where;
  private final Container container;
  private final ContainerProcess process;

  private HttpProber(String where, Container container, ContainerProcess process) {
    this.where = where;
    this.container = container;
    this.process = process;
  }

  /** True when the container has an HTTP probe. */
  static boolean hasHttpProbes(Container c) {
    return !probes(c).isEmpty();
  }

  /** Starts probing once the process publishes the probes' ports; stops when it exits. */
  static void watch(String where, Container c, ContainerProcess process) {
    HttpProber prober = new HttpProber(where, c, process);
    AtomicBoolean started = new AtomicBoolean();
    process.onPortPublished(
        () -> {
          if (prober.allPortsPublished() && started.compareAndSet(false, true)) {
            prober.begin();
          }
        });
  }

  private static List<Probe> probes(Container c) {
    List<Probe> out = new ArrayList<>();
    for (Probe p : new Probe[] {c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe()}) {
      if (p != null && p.getHttpGet() != null) {
        out.add(p);
      }
    }
    return out;
  }

  private boolean allPortsPublished() {
    return probes(container).stream().allMatch(p -> hostPort(p) != null);
  }

  /** The published host port of a probe's port (a number or a container port's name), or null. */
  private Integer hostPort(Probe p) {
    IntOrString port = p.getHttpGet().getPort();
    Integer containerPort = port.getIntVal();
    if (containerPort == null && container.getPorts() != null) {
      containerPort =
          container.getPorts().stream()
              .filter(cp -> port.getStrVal().equals(cp.getName()))
              .map(ContainerPort::getContainerPort)
              .findFirst()
              .orElse(null);
    }
    return containerPort == null ? null : process.hostPort(containerPort);
  }

  /** One probe's schedule and counts. */
  private final class Schedule {
    final String kind;
    final Probe probe;
    long dueAt;
    int successes;
    int failures;

    Schedule(String kind, Probe probe, long now) {
      this.kind = kind;
      this.probe = probe;
      this.dueAt = now + seconds(probe.getInitialDelaySeconds(), 0) * 1000L;
    }

    /** Runs the probe if due; returns its verdict when it crossed a threshold, else null. */
    Boolean runIfDue(long now) {
      if (now < dueAt) {
        return null;
      }
      dueAt = now + seconds(probe.getPeriodSeconds(), 10) * 1000L;
      if (get()) {
        failures = 0;
        successes++;
        return successes >= seconds(probe.getSuccessThreshold(), 1) ? Boolean.TRUE : null;
      }
      successes = 0;
      failures++;
      return failures >= seconds(probe.getFailureThreshold(), 3) ? Boolean.FALSE : null;
    }

    private boolean get() {
      var http = probe.getHttpGet();
      String path = http.getPath() == null ? "/" : http.getPath();
      int timeoutMs = seconds(probe.getTimeoutSeconds(), 1) * 1000;
      try {
        HttpURLConnection c =
            (HttpURLConnection)
                URI.create("http://127.0.0.1:" + hostPort(probe) + path).toURL().openConnection();
        c.setConnectTimeout(timeoutMs);
        c.setReadTimeout(timeoutMs);
        int code = c.getResponseCode();
        c.disconnect();
        if (code < 200 || code >= 400) {
          LOG.debug("{}: {} probe {} answered {}", where, kind, path, code);
        }
        return code >= 200 && code < 400;
      } catch (IOException e) {
        LOG.debug("{}: {} probe {} failed: {}", where, kind, path, e.toString());
        return false;
      }
    }
  }

  private static int seconds(Integer value, int dflt) {
    return value == null || value <= 0 ? dflt : value;
  }

  private Schedule startup;
  private Schedule readiness;
  private Schedule liveness;
  private boolean started;

  private void begin() {
    long now = System.currentTimeMillis();
    startup = schedule("startup", container.getStartupProbe(), now);
    readiness = schedule("readiness", container.getReadinessProbe(), now);
    liveness = schedule("liveness", container.getLivenessProbe(), now);
    started = startup == null;
    KubeletThreads.probes().execute(this::step);
  }

  /**
   * Runs the probes that are due, then schedules itself for the next one due. Steps run one after
   * another (each schedules the next when it ends), so the schedules need no lock. On the kubelets'
   * shared timer and probe pool, not a thread per container: a probe's wait for its answer holds
   * one pool thread and delays no other container's.
   */
  private void step() {
    if (process.hasExited()) {
      return;
    }
    long now = System.currentTimeMillis();
    if (!started) {
      Boolean verdict = startup.runIfDue(now);
      if (Boolean.TRUE.equals(verdict)) {
        started = true;
        LOG.info("{}: container {} started (startup probe)", where, container.getName());
      } else if (Boolean.FALSE.equals(verdict)) {
        kill("startup");
        return;
      }
    }
    if (started) {
      if (readiness == null) {
        process.markReady();
      } else {
        Boolean verdict = readiness.runIfDue(now);
        if (Boolean.TRUE.equals(verdict)) {
          process.markReady();
        } else if (Boolean.FALSE.equals(verdict)) {
          process.markUnready();
        }
      }
      if (liveness != null && Boolean.FALSE.equals(liveness.runIfDue(now))) {
        kill("liveness");
        return;
      }
    }
    long next = Long.MAX_VALUE;
    for (Schedule s : started ? new Schedule[] {readiness, liveness} : new Schedule[] {startup}) {
      if (s != null) {
        next = Math.min(next, s.dueAt);
      }
    }
    if (next == Long.MAX_VALUE || process.hasExited()) {
      return;
    }
    KubeletThreads.timer()
        .schedule(
            () -> KubeletThreads.probes().execute(this::step),
            Math.max(0, next - System.currentTimeMillis()),
            TimeUnit.MILLISECONDS);
  }

  private Schedule schedule(String kind, Probe p, long now) {
    return p == null || p.getHttpGet() == null ? null : new Schedule(kind, p, now);
  }

  private void kill(String kind) {
    LOG.info(
        "{}: container {} failed its {} probe, will be restarted",
        where,
        container.getName(),
        kind);
    process.stop();
  }
}
