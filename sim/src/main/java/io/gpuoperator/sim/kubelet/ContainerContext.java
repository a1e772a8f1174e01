package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Everything a {@link ContainerRunner} gets to start one container on a simulated node.
 *
 * @param env the container's environment as the kubelet resolves it (literal values and the
 *     downward-API fields spec.nodeName, metadata.name/namespace, status.podIP/hostIP)
 * @param client a client for agents that call the API server (a service account stand-in); may be
 *     null when the simulation gives none
 * @param timer a shared scheduler for delays; runners must not block it
 * @param serviceAccountTokens the kubelet's tokens for pods' ServiceAccounts (what it would mount
 *     as {@code kube-api-access})
 * @param nodes the simulation's watch of every Node, for agents that follow their own; null when
 *     the kubelet has none
 */
public record ContainerContext(
    String nodeName,
    NodeDirs dirs,
    Pod pod,
    Container container,
    boolean init,
    Map<String, String> env,
    KubernetesClient client,
    ScheduledExecutorService timer,
    ServiceAccountTokens serviceAccountTokens,
    NodeWatch nodes) {

  /** The same container with this environment instead. */
  public ContainerContext withEnv(Map<String, String> otherEnv) {
    return new ContainerContext(
        nodeName, dirs, pod, container, init, otherEnv, client, timer, serviceAccountTokens, nodes);
  }

  /** The container's command followed by its args. */
  public List<String> commandLine() {
    return ContainerRunners.commandLine(container);
  }
}
