package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.node.agent.AgentEnv;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How {@link NodeAgentsModel} merges the hosted agents' main containers into the one node-agents
 * container: variables shared or prefixed per agent, one mount per path, the union of ports, the
 * least security context that grants each agent what it asks for, resources summed.
 */
final class NodeAgentsContainer {
  private NodeAgentsContainer() {}

  /**
   * Variables the container runtime reads from the container (the nvidia runtime injects the GPUs
   * they name): they stay the container's, the first agent's definition, since the runtime cannot
   * see prefixed ones. Every agent that sets them sets {@code all}. {@code
   * NVIDIA_MIG_MONITOR_DEVICES} (the device plugin's under a MIG strategy) lets the runtime grant
   * the MIG monitor capability, which listing MIG devices needs.
   */
  static final Set<String> RUNTIME_ENV =
      Set.of(
          "NVIDIA_VISIBLE_DEVICES",
          "NVIDIA_DRIVER_CAPABILITIES",
          "NVIDIA_MIG_MONITOR_DEVICES",
          "NVIDIA_MIG_CONFIG_DEVICES");

  /**
   * Variables every hosted agent sets alike, and the runtime's ({@link #RUNTIME_ENV}), as they are;
   * the others per agent (the key of {@code byAgent}), prefixed.
   */
  static List<EnvVar> env(Map<String, Container> byAgent) {
    Map<String, List<EnvVar>> byName = new LinkedHashMap<>();
    for (Container c : byAgent.values()) {
      for (EnvVar e : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
        byName.computeIfAbsent(e.getName(), k -> new ArrayList<>()).add(e);
      }
    }
    List<EnvVar> shared = new ArrayList<>();
    Set<String> sharedNames = new LinkedHashSet<>();
    byName.forEach(
        (name, defs) -> {
          if (RUNTIME_ENV.contains(name)
              || (defs.size() == byAgent.size() && defs.stream().distinct().count() == 1)) {
            shared.add(defs.get(0));
            sharedNames.add(name);
          }
        });
    List<EnvVar> out = new ArrayList<>(shared);
    for (Map.Entry<String, Container> agent : byAgent.entrySet()) {
      Container c = agent.getValue();
      for (EnvVar e : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
        if (!sharedNames.contains(e.getName())) {
          EnvVar copy = Serialization.clone(e);
          copy.setName(AgentEnv.prefix(agent.getKey()) + e.getName());
          out.add(copy);
        }
      }
    }
    return out;
  }

  /** One mount per path: read-only only if every agent has it so, the strongest propagation. */
  static List<VolumeMount> mounts(List<Container> containers) {
    Map<String, VolumeMount> byPath = new LinkedHashMap<>();
    for (Container c : containers) {
      for (VolumeMount m :
          c.getVolumeMounts() == null ? List.<VolumeMount>of() : c.getVolumeMounts()) {
        VolumeMount have = byPath.get(m.getMountPath());
        if (have == null) {
          byPath.put(m.getMountPath(), Serialization.clone(m));
          continue;
        }
        if (!have.getName().equals(m.getName())
            || !Objects.equals(have.getSubPath(), m.getSubPath())) {
          throw new IllegalStateException(
              "node-agents: two agents mount different volumes at "
                  + m.getMountPath()
                  + " ("
                  + have.getName()
                  + ", "
                  + m.getName()
                  + ")");
        }
        if (!Boolean.TRUE.equals(m.getReadOnly())) {
          have.setReadOnly(null);
        }
        if (rank(m.getMountPropagation()) > rank(have.getMountPropagation())) {
          have.setMountPropagation(m.getMountPropagation());
        }
      }
    }
    return new ArrayList<>(byPath.values());
  }

  private static int rank(String propagation) {
    if (propagation == null || propagation.equals("None")) {
      return 0;
    }
    return propagation.equals("HostToContainer") ? 1 : 2;
  }

  static List<ContainerPort> ports(List<Container> containers) {
    Map<String, ContainerPort> out = new LinkedHashMap<>();
    for (Container c : containers) {
      if (c.getPorts() != null) {
        c.getPorts().forEach(p -> out.putIfAbsent(p.getContainerPort() + "/" + p.getProtocol(), p));
      }
    }
    return out.isEmpty() ? null : new ArrayList<>(out.values());
  }

  /**
   * Privileged when any agent is, as root when any agent runs as root (a privileged process of the
   * image's non-root user has no capabilities). Otherwise the least that grants each agent what it
   * asks for: root when any runs as root (the device plugin, for the kubelet's socket directory),
   * the union of added capabilities (the device plugin's SYS_ADMIN under a MIG strategy), and each
   * restriction (dropped capabilities, no privilege escalation, seccomp profile, non-root,
   * read-only root) only where every agent has it.
   */
  static SecurityContext securityContext(List<Container> containers) {
    List<SecurityContext> all =
        containers.stream().map(c -> c.getSecurityContext()).filter(Objects::nonNull).toList();
    if (all.stream().anyMatch(sc -> Boolean.TRUE.equals(sc.getPrivileged()))) {
      SecurityContext sc = new SecurityContext();
      sc.setPrivileged(true);
      if (all.stream().anyMatch(c -> Long.valueOf(0).equals(c.getRunAsUser()))) {
        sc.setRunAsUser(0L);
        sc.setRunAsGroup(0L);
      }
      return sc;
    }
    if (all.isEmpty()) {
      return null;
    }
    boolean everyOne = all.size() == containers.size();
    SecurityContext out = new SecurityContext();
    if (all.stream().anyMatch(sc -> Long.valueOf(0).equals(sc.getRunAsUser()))) {
      out.setRunAsUser(0L);
    } else if (everyOne && all.stream().allMatch(sc -> Boolean.TRUE.equals(sc.getRunAsNonRoot()))) {
      out.setRunAsNonRoot(true);
    }
    // Root's group as well where an agent asks for it (the MIG manager): the image's is 65532.
    if (all.stream().anyMatch(sc -> Long.valueOf(0).equals(sc.getRunAsGroup()))) {
      out.setRunAsGroup(0L);
    }
    java.util.Set<String> add = new java.util.TreeSet<>();
    all.forEach(
        sc -> {
          if (sc.getCapabilities() != null && sc.getCapabilities().getAdd() != null) {
            add.addAll(sc.getCapabilities().getAdd());
          }
        });
    boolean dropAll =
        everyOne
            && all.stream()
                .allMatch(
                    sc ->
                        sc.getCapabilities() != null
                            && sc.getCapabilities().getDrop() != null
                            && sc.getCapabilities().getDrop().contains("ALL"));
    if (dropAll || !add.isEmpty()) {
      var caps = new io.fabric8.kubernetes.api.model.Capabilities();
      caps.setAdd(add.isEmpty() ? null : new ArrayList<>(add));
      caps.setDrop(dropAll ? List.of("ALL") : null);
      out.setCapabilities(caps);
    }
    if (everyOne
        && all.stream().allMatch(sc -> Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation()))) {
      out.setAllowPrivilegeEscalation(false);
    }
    if (everyOne
        && all.stream().allMatch(sc -> Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()))) {
      out.setReadOnlyRootFilesystem(true);
    }
    var profile = all.get(0).getSeccompProfile();
    if (everyOne
        && profile != null
        && all.stream().allMatch(sc -> profile.equals(sc.getSeccompProfile()))) {
      out.setSeccompProfile(Serialization.clone(profile));
    }
    return out;
  }

  /** The agents' resources added up (one JVM needs less, but never more than all of them). */
  static ResourceRequirements resources(List<Container> containers) {
    Map<String, Quantity> requests = new LinkedHashMap<>();
    Map<String, Quantity> limits = new LinkedHashMap<>();
    boolean any = false;
    for (Container c : containers) {
      ResourceRequirements r = c.getResources();
      if (r == null) {
        continue;
      }
      any = true;
      add(requests, r.getRequests());
      add(limits, r.getLimits());
    }
    if (!any) {
      return null;
    }
    ResourceRequirements out = new ResourceRequirements();
    out.setRequests(requests.isEmpty() ? null : requests);
    out.setLimits(limits.isEmpty() ? null : limits);
    return out;
  }

  private static void add(Map<String, Quantity> sum, Map<String, Quantity> more) {
    if (more != null) {
      more.forEach((k, v) -> sum.merge(k, v, Quantity::add));
    }
  }
}
