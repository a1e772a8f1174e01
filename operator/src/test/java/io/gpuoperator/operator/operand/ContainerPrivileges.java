package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.OperandImages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What one operand container may do on its node, read from a rendered DaemonSet: the facts the
 * privileges allow-list ({@link OperandPrivilegesTest}) and the table in docs/security.md state.
 * Everything is a set of short strings so that privileges seen in several renderings can be joined
 * and compared with one {@code equals}.
 *
 * @param privileges {@code privileged}, {@code root}, {@code escalation} (allowPrivilegeEscalation
 *     not false), {@code hostPID}, {@code hostIPC}, {@code hostNetwork}, {@code cap:<NAME>}
 * @param hostPaths {@code <host path> -> <mount path> (ro|rw[, <propagation>])}
 */
record ContainerPrivileges(String key, SortedSet<String> privileges, SortedSet<String> hostPaths) {

  /** Every container (init containers first) of a DaemonSet's pod. */
  static List<ContainerPrivileges> of(DaemonSet ds) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Map<String, Volume> volumes =
        pod.getVolumes() == null
            ? Map.of()
            : pod.getVolumes().stream().collect(Collectors.toMap(Volume::getName, v -> v));
    List<ContainerPrivileges> out = new ArrayList<>();
    for (Container c :
        Stream.concat(
                pod.getInitContainers() == null ? Stream.empty() : pod.getInitContainers().stream(),
                pod.getContainers().stream())
            .toList()) {
      SortedSet<String> privileges = new TreeSet<>();
      SecurityContext sc =
          c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
      boolean privileged = Boolean.TRUE.equals(sc.getPrivileged());
      if (privileged) {
        privileges.add("privileged");
      }
      Long uid = sc.getRunAsUser();
      if (uid == null && pod.getSecurityContext() != null) {
        uid = pod.getSecurityContext().getRunAsUser();
      }
      // Without a runAsUser the image's user applies: this project's image runs as 65532 (the
      // Dockerfile), NVIDIA's images as root.
      if (Objects.equals(uid, 0L) || (uid == null && !OperandImages.isProjectImage(c.getImage()))) {
        privileges.add("root");
      }
      // Kubernetes allows escalation (setuid binaries, file capabilities) unless told not to.
      if (!privileged && !Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
        privileges.add("escalation");
      }
      if (!privileged && sc.getCapabilities() != null && sc.getCapabilities().getAdd() != null) {
        sc.getCapabilities().getAdd().forEach(cap -> privileges.add("cap:" + cap));
      }
      if (!privileged
          && privileges.contains("root")
          && (sc.getCapabilities() == null
              || sc.getCapabilities().getDrop() == null
              || !sc.getCapabilities().getDrop().contains("ALL"))) {
        // The runtime's default set (CHOWN, DAC_OVERRIDE, SETUID, ...) stays with the process.
        privileges.add("cap:runtime-default");
      }
      if (Boolean.TRUE.equals(pod.getHostPID())) {
        privileges.add("hostPID");
      }
      if (Boolean.TRUE.equals(pod.getHostIPC())) {
        privileges.add("hostIPC");
      }
      if (Boolean.TRUE.equals(pod.getHostNetwork())) {
        privileges.add("hostNetwork");
      }
      SortedSet<String> hostPaths = new TreeSet<>();
      if (c.getVolumeMounts() != null) {
        for (var m : c.getVolumeMounts()) {
          Volume v = volumes.get(m.getName());
          if (v == null || v.getHostPath() == null) {
            continue;
          }
          String path = v.getHostPath().getPath();
          if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
            path = path + "/" + m.getSubPath();
          }
          String how = Boolean.TRUE.equals(m.getReadOnly()) ? "ro" : "rw";
          if (m.getMountPropagation() != null && !m.getMountPropagation().equals("None")) {
            how += ", " + m.getMountPropagation();
          }
          hostPaths.add(path + " -> " + m.getMountPath() + " (" + how + ")");
        }
      }
      // NVIDIA's images and ours in one DaemonSet (the toolkit's) keep the original's contract or
      // ours: they are separate entries.
      String image = OperandImages.isProjectImage(c.getImage()) ? "" : " (NVIDIA's image)";
      out.add(
          new ContainerPrivileges(
              ds.getMetadata().getName() + "/" + c.getName() + image, privileges, hostPaths));
    }
    return out;
  }

  /** The union of each container's privileges over several renderings, by key. */
  static Map<String, ContainerPrivileges> union(Stream<ContainerPrivileges> all) {
    return all.collect(
        Collectors.toMap(
            ContainerPrivileges::key,
            Function.identity(),
            (a, b) -> {
              SortedSet<String> p = new TreeSet<>(a.privileges);
              p.addAll(b.privileges);
              SortedSet<String> h = new TreeSet<>(a.hostPaths);
              h.addAll(b.hostPaths);
              return new ContainerPrivileges(a.key, p, h);
            },
            java.util.TreeMap::new));
  }
}
