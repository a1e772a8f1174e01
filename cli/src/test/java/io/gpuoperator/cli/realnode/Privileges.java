package io.gpuoperator.cli.realnode;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a container's process may do: its user, its effective capabilities, whether it can gain
 * privileges, and whether a seccomp filter confines it. {@link #declared} is what a pod spec asks
 * for; {@link #ofProcess} what a process on the node has ({@code /proc/<pid>/status}); {@link
 * #ofOciSpec} what containerd told runc to give it (the only record left of an init container that
 * has finished).
 *
 * @param uid the effective user
 * @param capabilities the effective capabilities, e.g. {@code SYS_ADMIN}; {@link #ALL} stands for
 *     every capability the node has (privileged)
 * @param noNewPrivileges whether the process cannot gain privileges (setuid binaries, file caps)
 * @param seccomp whether a seccomp filter is applied
 */
record Privileges(long uid, Set<String> capabilities, boolean noNewPrivileges, boolean seccomp) {
  /** Every capability: what a privileged container gets. */
  static final Set<String> ALL = Set.of("ALL");

  /** The user of this project's image (scripts/image.sh, the Dockerfile: USER 65532). */
  static final long IMAGE_USER = 65532;

  /** Linux capability names by number (include/uapi/linux/capability.h). */
  static final List<String> NAMES =
      List.of(
          "CHOWN",
          "DAC_OVERRIDE",
          "DAC_READ_SEARCH",
          "FOWNER",
          "FSETID",
          "KILL",
          "SETGID",
          "SETUID",
          "SETPCAP",
          "LINUX_IMMUTABLE",
          "NET_BIND_SERVICE",
          "NET_BROADCAST",
          "NET_ADMIN",
          "NET_RAW",
          "IPC_LOCK",
          "IPC_OWNER",
          "SYS_MODULE",
          "SYS_RAWIO",
          "SYS_CHROOT",
          "SYS_PTRACE",
          "SYS_PACCT",
          "SYS_ADMIN",
          "SYS_BOOT",
          "SYS_NICE",
          "SYS_RESOURCE",
          "SYS_TIME",
          "SYS_TTY_CONFIG",
          "MKNOD",
          "LEASE",
          "AUDIT_WRITE",
          "AUDIT_CONTROL",
          "SETFCAP",
          "MAC_OVERRIDE",
          "MAC_ADMIN",
          "SYSLOG",
          "WAKE_ALARM",
          "BLOCK_SUSPEND",
          "AUDIT_READ",
          "PERFMON",
          "BPF",
          "CHECKPOINT_RESTORE");

  /**
   * What a container's security context (over its pod's) asks for: privileged gets everything; a
   * root process without privilege gets exactly the capabilities added after dropping ALL (our
   * manifests always drop ALL; without that, containerd's default set would apply, which this does
   * not model); any other user none.
   */
  static Privileges declared(Container c, PodSecurityContext pod, long imageUser) {
    SecurityContext sc =
        c.getSecurityContext() == null ? new SecurityContext() : c.getSecurityContext();
    Long uid =
        sc.getRunAsUser() != null ? sc.getRunAsUser() : pod == null ? null : pod.getRunAsUser();
    long user = uid == null ? imageUser : uid;
    boolean privileged = Boolean.TRUE.equals(sc.getPrivileged());
    Set<String> caps = new TreeSet<>();
    if (privileged) {
      caps.addAll(ALL);
    } else if (user == 0) {
      boolean dropAll =
          sc.getCapabilities() != null
              && sc.getCapabilities().getDrop() != null
              && sc.getCapabilities().getDrop().contains("ALL");
      if (!dropAll) {
        throw new AssertionError(
            c.getName() + ": runs as root without dropping ALL capabilities: say which it needs");
      }
      if (sc.getCapabilities().getAdd() != null) {
        caps.addAll(sc.getCapabilities().getAdd());
      }
    }
    // Kubernetes turns no_new_privs off for privileged containers and where the field is unset.
    boolean noNewPrivs = !privileged && Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation());
    String profile =
        sc.getSeccompProfile() != null
            ? sc.getSeccompProfile().getType()
            : pod != null && pod.getSeccompProfile() != null
                ? pod.getSeccompProfile().getType()
                : "Unconfined";
    return new Privileges(user, caps, noNewPrivs, !privileged && "RuntimeDefault".equals(profile));
  }

  /** A process's, from {@code /proc/<pid>/status}; {@code bounding} is the node's own set. */
  static Privileges ofProcess(Map<String, String> status, Set<String> bounding) {
    long uid = Long.parseLong(status.get("Uid").split("\\s+")[1]);
    Set<String> caps = names(Long.parseUnsignedLong(status.get("CapEff"), 16));
    return new Privileges(
        uid,
        caps.equals(bounding) && !caps.isEmpty() ? ALL : caps,
        "1".equals(status.get("NoNewPrivs")),
        !"0".equals(status.get("Seccomp")));
  }

  /** What containerd's OCI spec for the container grants. */
  static Privileges ofOciSpec(JsonNode spec, Set<String> bounding) {
    JsonNode process = spec.path("process");
    Set<String> caps = new TreeSet<>();
    process
        .path("capabilities")
        .path("effective")
        .forEach(n -> caps.add(n.asText().replaceFirst("^CAP_", "")));
    long uid = process.path("user").path("uid").asLong();
    if (uid != 0 && process.path("capabilities").path("ambient").isEmpty()) {
      caps.clear(); // execve as another user than root leaves no effective capability
    }
    return new Privileges(
        uid,
        caps.containsAll(bounding) && !caps.isEmpty() ? ALL : caps,
        process.path("noNewPrivileges").asBoolean(false),
        spec.path("linux").has("seccomp"));
  }

  /** The capability names of a {@code CapEff}-style bit mask. */
  static Set<String> names(long mask) {
    Set<String> out = new TreeSet<>();
    for (int bit = 0; bit < 64; bit++) {
      if ((mask & (1L << bit)) != 0) {
        out.add(bit < NAMES.size() ? NAMES.get(bit) : "CAP_" + bit);
      }
    }
    return out;
  }
}
