package io.gpuoperator.sim.kubelet;

import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One run of a simulated container: started, maybe ready, maybe exited with a code. A {@link
 * ContainerRunner} drives it; the pod worker reads it. Thread-safe.
 */
public final class ContainerProcess {
  private final Instant startedAt = Instant.now();
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean ready;
  private volatile Integer exitCode;
  private volatile Instant finishedAt;
  private volatile String message;
  private volatile Runnable onStop = () -> {};
  private final java.util.Map<Integer, Integer> ports =
      new java.util.concurrent.ConcurrentHashMap<>();
  private Runnable onPortPublished;

  public Instant startedAt() {
    return startedAt;
  }

  public boolean isReady() {
    return ready && exitCode == null;
  }

  public boolean hasExited() {
    return exitCode != null;
  }

  /** The exit code, or null while it runs. */
  public Integer exitCode() {
    return exitCode;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  /** Why it exited, when the runner knows (shown as the terminated state's message). */
  public String message() {
    return message;
  }

  /** Called by the runner once the container passes its readiness. */
  public void markReady() {
    if (exitCode == null && !ready) {
      ready = true;
      fire();
    }
  }

  /** Called by the prober when the container fails its readiness probe. */
  public void markUnready() {
    if (exitCode == null && ready) {
      ready = false;
      fire();
    }
  }

  /**
   * Called by an in-process agent that serves a container port on another port of this machine
   * (simulated containers share its network): the kubelet's probes of that port go there, and
   * decide the container's readiness from then on (see {@link HttpProber}).
   */
  public void publishPort(int containerPort, int hostPort) {
    ports.put(containerPort, hostPort);
    Runnable r;
    synchronized (this) {
      r = onPortPublished;
    }
    if (r != null) {
      r.run();
    }
  }

  /** Where a container port is served on this machine, or null when not published. */
  public Integer hostPort(int containerPort) {
    return ports.get(containerPort);
  }

  /** Runs the action after each published port (and at once if some already are). */
  void onPortPublished(Runnable action) {
    synchronized (this) {
      onPortPublished = action;
    }
    if (!ports.isEmpty()) {
      action.run();
    }
  }

  /** Called by the runner when the container ends; later calls are ignored. */
  public synchronized void exit(int code, String why) {
    if (exitCode != null) {
      return;
    }
    finishedAt = Instant.now();
    message = why;
    exitCode = code;
    ready = false;
    fire();
  }

  /** What the runner does when the container is killed (before it is marked exited). */
  public void onStop(Runnable action) {
    this.onStop = action;
  }

  /** Kills the container: runs the runner's stop action, then exits with 137 if still running. */
  public void stop() {
    if (exitCode != null) {
      return;
    }
    try {
      onStop.run();
    } finally {
      exit(KubeletConstants.EXIT_KILLED, "killed");
    }
  }

  /** Runs the action on every change (ready, exit). */
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  private void fire() {
    for (Runnable l : listeners) {
      l.run();
    }
  }
}
