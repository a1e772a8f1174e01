package io.gpuoperator.sim.kubelet;

import static io.gpuoperator.sim.kubelet.KubeletConstants.*;
import static io.gpuoperator.sim.kubelet.NodeModel.rfc3339;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns the simulated runtime's view of a pod (its container slots) into the PodStatus a kubelet
 * would post: phase, conditions, init and container statuses. No I/O.
 */
final class PodStatusModel {
  private PodStatusModel() {}

  /** Pod phases as the kubelet computes them (kubelet_pods.go getPhase), simplified. */
  static String phase(List<ContainerSlot> init, List<ContainerSlot> main, String restartPolicy) {
    for (ContainerSlot s : init) {
      if (s.exited() && !s.succeeded() && "Never".equals(restartPolicy)) {
        return "Failed";
      }
    }
    if (!init.stream().allMatch(ContainerSlot::succeeded)) {
      return "Pending";
    }
    int running = 0;
    int waiting = 0;
    int stopped = 0;
    int succeeded = 0;
    for (ContainerSlot s : main) {
      if (s.running()) {
        running++;
      } else if (s.exited() && s.restartAt == null) {
        stopped++;
        if (s.succeeded()) {
          succeeded++;
        }
      } else if (s.exited() || s.previous != null) {
        stopped++; // crashed and waiting to restart: kubelet counts it as stopped
      } else {
        waiting++;
      }
    }
    if (waiting > 0) {
      return "Pending";
    }
    if (running > 0) {
      return "Running";
    }
    if (stopped > 0) {
      if ("Always".equals(restartPolicy)) {
        return "Running";
      }
      if (stopped == succeeded) {
        return "Succeeded";
      }
      if ("Never".equals(restartPolicy)) {
        return "Failed";
      }
      return "Running";
    }
    return "Pending";
  }

  static PodStatus status(
      String phase,
      List<ContainerSlot> init,
      List<ContainerSlot> main,
      Map<String, Instant> transitions,
      Instant startTime,
      String hostIp,
      String podIp) {
    boolean initialized = init.stream().allMatch(ContainerSlot::succeeded);
    boolean containersReady =
        !main.isEmpty() && main.stream().allMatch(s -> s.process != null && s.process.isReady());
    boolean terminal = phase.equals("Succeeded") || phase.equals("Failed");
    List<PodCondition> conditions = new ArrayList<>();
    conditions.add(
        condition(
            "Initialized",
            initialized || terminal,
            initialized ? null : "ContainersNotInitialized",
            initialized ? null : "containers with incomplete status: " + names(init, false),
            transitions));
    String notReadyReason = terminal ? "PodCompleted" : "ContainersNotReady";
    String notReadyMessage =
        terminal ? null : "containers with unready status: " + names(main, true);
    conditions.add(
        condition(
            "Ready",
            containersReady,
            containersReady ? null : notReadyReason,
            containersReady ? null : notReadyMessage,
            transitions));
    conditions.add(
        condition(
            "ContainersReady",
            containersReady,
            containersReady ? null : notReadyReason,
            containersReady ? null : notReadyMessage,
            transitions));
    conditions.add(condition("PodScheduled", true, null, null, transitions));

    List<ContainerStatus> initStatuses = new ArrayList<>();
    for (ContainerSlot s : init) {
      initStatuses.add(containerStatus(s, REASON_POD_INITIALIZING));
    }
    List<ContainerStatus> statuses = new ArrayList<>();
    for (ContainerSlot s : main) {
      statuses.add(
          containerStatus(s, initialized ? REASON_CONTAINER_CREATING : REASON_POD_INITIALIZING));
    }
    PodStatusBuilder b =
        new PodStatusBuilder()
            .withPhase(phase)
            .withConditions(conditions)
            .withHostIP(hostIp)
            .withPodIP(podIp)
            .withPodIPs(new PodIP(podIp))
            .withStartTime(rfc3339(startTime))
            .withContainerStatuses(statuses);
    if (!initStatuses.isEmpty()) {
      b.withInitContainerStatuses(initStatuses);
    }
    return b.build();
  }

  private static String names(List<ContainerSlot> slots, boolean unready) {
    List<String> out = new ArrayList<>();
    for (ContainerSlot s : slots) {
      boolean incomplete = unready ? !(s.process != null && s.process.isReady()) : !s.succeeded();
      if (incomplete) {
        out.add(s.name());
      }
    }
    return "[" + String.join(" ", out) + "]";
  }

  private static PodCondition condition(
      String type, boolean status, String reason, String message, Map<String, Instant> since) {
    String value = status ? "True" : "False";
    Instant t = since.computeIfAbsent(type + "=" + value, k -> Instant.now());
    // A flip resets the other value's transition time so the next flip gets a fresh one.
    since.remove(type + "=" + (status ? "False" : "True"));
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(value)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(rfc3339(t))
        .build();
  }

  static ContainerStatus containerStatus(ContainerSlot s, String pendingReason) {
    ContainerState state;
    ContainerState last = null;
    if (s.previous != null) {
      last = terminated(s.previous, s.previousId);
    }
    if (s.process == null) {
      state = waiting(pendingReason, null);
    } else if (!s.process.hasExited()) {
      state =
          new ContainerStateBuilder()
              .withNewRunning()
              .withStartedAt(rfc3339(s.process.startedAt()))
              .endRunning()
              .build();
    } else if (s.restartAt != null) {
      last = terminated(s.process, s.containerId);
      state =
          waiting(
              REASON_CRASH_LOOP,
              "back-off restarting failed container "
                  + s.name()
                  + " (restart at "
                  + rfc3339(s.restartAt)
                  + ")");
    } else {
      state = terminated(s.process, s.containerId);
    }
    boolean ready = s.init ? s.succeeded() : s.process != null && s.process.isReady();
    ContainerStatusBuilder b =
        new ContainerStatusBuilder()
            .withName(s.name())
            .withImage(s.spec.getImage())
            .withImageID(imageId(s.spec.getImage()))
            .withReady(ready)
            .withStarted(s.running())
            .withRestartCount(s.restartCount)
            .withState(state);
    if (s.containerId != null) {
      b.withContainerID(s.containerId);
    }
    if (last != null) {
      b.withLastState(last);
    }
    return b.build();
  }

  private static ContainerState waiting(String reason, String message) {
    return new ContainerStateBuilder()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .build();
  }

  private static ContainerState terminated(ContainerProcess p, String id) {
    int code = p.exitCode();
    return new ContainerStateBuilder()
        .withNewTerminated()
        .withExitCode(code)
        .withReason(code == 0 ? REASON_COMPLETED : REASON_ERROR)
        .withMessage(p.message())
        .withStartedAt(rfc3339(p.startedAt()))
        .withFinishedAt(rfc3339(p.finishedAt()))
        .withContainerID(id)
        .endTerminated()
        .build();
  }

  /** A digest-pinned image id like containerd reports, stable per image name. */
  static String imageId(String image) {
    String name = image == null ? "unknown" : image;
    int colon = name.lastIndexOf(':');
    String repo = colon > name.lastIndexOf('/') ? name.substring(0, colon) : name;
    return repo + "@sha256:" + sha256(name);
  }

  static String sha256(String s) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
