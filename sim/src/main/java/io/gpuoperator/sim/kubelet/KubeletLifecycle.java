package io.gpuoperator.sim.kubelet;

/**
 * Hears a simulated kubelet start, get killed and close, so parts of the kubelet that live beside
 * it (e.g. the device-plugin registration server, which plugins must re-register with after a
 * kubelet restart) follow it.
 */
public interface KubeletLifecycle {

  /** The kubelet started; {@code restart} is true when it had been killed before. */
  default void started(boolean restart) {}

  /** The kubelet was killed (containers keep running). */
  default void killed() {}

  /** The kubelet is shutting down for good: its containers are about to be stopped. */
  default void closing() {}

  /** The kubelet and its containers are gone for good. */
  default void closed() {}
}
