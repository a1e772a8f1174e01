package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What an in-process agent sees: its arguments (after the agent's name), environment, the node's
 * name and directories, and a client standing in for its service account.
 */
public final class AgentContext {
  private final ContainerContext container;
  private final List<String> args;
  private final ContainerProcess process;
  private final Runnable ready;

  AgentContext(ContainerContext container, List<String> args, ContainerProcess process) {
    this(container, args, process, process::markReady);
  }

  private AgentContext(
      ContainerContext container, List<String> args, ContainerProcess process, Runnable ready) {
    this.container = container;
    this.args = List.copyOf(args);
    this.process = process;
    this.ready = ready;
  }

  /**
   * The context of one agent that this container hosts ({@code gpu-operator node-agents}): its own
   * arguments and environment, the same node, pod and client; its readiness goes to {@code ready}
   * instead of the container's.
   */
  public AgentContext hosted(List<String> agentArgs, Map<String, String> env, Runnable ready) {
    return new AgentContext(container.withEnv(env), agentArgs, process, ready);
  }

  /** Arguments after the agent's subcommand name, e.g. [--component, driver]. */
  public List<String> args() {
    return args;
  }

  public Map<String, String> env() {
    return container.env();
  }

  /** The same context with more environment (e.g. what an entrypoint script exported). */
  AgentContext withEnv(Map<String, String> more) {
    Map<String, String> env = new java.util.LinkedHashMap<>(container.env());
    env.putAll(more);
    return new AgentContext(container.withEnv(env), args, process, ready);
  }

  public String nodeName() {
    return container.nodeName();
  }

  public NodeDirs dirs() {
    return container.dirs();
  }

  /** Where a host path of the real node is on this simulated node. */
  public Path hostPath(String path) {
    return container.dirs().hostPath(path);
  }

  /** May be null when the simulation gives agents no client. */
  public KubernetesClient client() {
    return container.client();
  }

  /**
   * Where the agent hears of its own Node: the simulation's one watch of every Node when it has
   * one, else an informer through {@link #client()}.
   */
  public NodeWatch nodeWatch() {
    return container.nodes() != null ? container.nodes() : NodeWatch.informer(client());
  }

  public ContainerContext container() {
    return container;
  }

  /**
   * A client configuration authenticated as the pod's ServiceAccount, as a real container gets it
   * from its {@code kube-api-access} volume (see {@link ServiceAccountTokens}): for agents that
   * must run with exactly their RBAC, unlike {@link #client()}.
   */
  public io.fabric8.kubernetes.client.Config serviceAccountConfig() {
    return container.serviceAccountTokens().configFor(container.pod());
  }

  /**
   * The agent serves this container port on {@code hostPort} of 127.0.0.1; the kubelet's HTTP
   * probes of that port go there and decide readiness from then on (the agent then does not call
   * {@link #markReady()}).
   */
  public void publishPort(int containerPort, int hostPort) {
    process.publishPort(containerPort, hostPort);
  }

  /** The container passes its readiness from now on. */
  public void markReady() {
    ready.run();
  }
}
