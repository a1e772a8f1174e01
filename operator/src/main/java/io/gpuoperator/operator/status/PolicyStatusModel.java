package io.gpuoperator.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.OperandStatus;
import io.gpuoperator.api.common.PolicyStatus;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicyStatus;
import io.gpuoperator.operator.validation.Violation;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Builds a ClusterPolicy's status from what the reconciler observed. Pure: the caller patches the
 * result only when {@link #sameAs} says it differs from what is stored.
 */
public final class PolicyStatusModel {
  private PolicyStatusModel() {}

  /**
   * Another policy is active; this one gets state ignored and a condition naming the active one.
   */
  public static ClusterPolicyStatus ignored(
      long generation, String namespace, String activePolicy, ClusterPolicyStatus previous) {
    String message =
        "ClusterPolicy "
            + activePolicy
            + " is active (oldest creationTimestamp, then name); this one is ignored";
    return build(
        Verdict.ignored(Conditions.IGNORED, message), generation, namespace, null, previous);
  }

  /** The spec cannot be applied (validation or rendering); the last valid operands keep running. */
  public static ClusterPolicyStatus invalid(
      long generation,
      String namespace,
      String message,
      List<OperandReadiness> lastValid,
      ClusterPolicyStatus previous) {
    return build(
        Verdict.error(Conditions.RECONCILE_FAILED, message),
        generation,
        namespace,
        lastValid,
        previous);
  }

  /**
   * The API server is older than the operator supports: nothing is rendered, and the condition says
   * which version is needed.
   */
  public static ClusterPolicyStatus unsupportedServer(
      long generation, String namespace, String message, ClusterPolicyStatus previous) {
    return build(
        Verdict.error(Conditions.UNSUPPORTED_KUBERNETES_VERSION, message),
        generation,
        namespace,
        null,
        previous);
  }

  /** Applying failed with an API error (retried by the framework). */
  public static ClusterPolicyStatus failed(
      long generation, String namespace, String message, ClusterPolicyStatus previous) {
    return failed(new ClusterPolicyStatus(), generation, namespace, message, previous);
  }

  /**
   * A pass failed (an API error, retried, or a spec it cannot apply): not ready, the error in both
   * conditions, and the operands as the last status had them (nothing was measured this pass).
   */
  public static <S extends PolicyStatus> S failed(
      S fresh, long generation, String namespace, String message, PolicyStatus previous) {
    S s =
        fill(
            fresh,
            Verdict.error(Conditions.RECONCILE_FAILED, message),
            generation,
            namespace,
            null,
            previous);
    if (previous != null) {
      s.operands = previous.operands;
    }
    return s;
  }

  /**
   * The policy was applied: ready only when every operand is; no GPU nodes is ready with reason
   * NoGPUNodes when NFD labels exist, and an error (NFDLabelsMissing) when they do not. Nodes the
   * policy would give both the device plugin and the DRA driver are an error naming them
   * (ConflictingGpuAllocators): the user must choose, and nothing changes on them meanwhile.
   */
  public static ClusterPolicyStatus applied(
      long generation,
      String namespace,
      List<OperandReadiness> operands,
      int gpuNodes,
      boolean nfdLabels,
      List<String> allocatorConflicts,
      ClusterPolicyStatus previous) {
    if (!allocatorConflicts.isEmpty()) {
      return build(
          Verdict.error(Conditions.CONFLICTING_GPU_ALLOCATORS, conflictMessage(allocatorConflicts)),
          generation,
          namespace,
          operands,
          previous);
    }
    List<OperandReadiness> notReady = operands.stream().filter(o -> !o.ready()).toList();
    if (gpuNodes == 0 && !nfdLabels) {
      return build(
          Verdict.error(
              Conditions.NFD_LABELS_MISSING,
              "No node has NFD labels (feature.node.kubernetes.io/...) nor nvidia.com/gpu.present:"
                  + " deploy Node Feature Discovery to detect GPU nodes"),
          generation,
          namespace,
          operands,
          previous);
    }
    if (!notReady.isEmpty()) {
      String message =
          "Operands not ready: "
              + notReady.stream()
                  .map(o -> o.name() + " (" + o.reason() + ")")
                  .collect(Collectors.joining(", "));
      return build(
          Verdict.notReady(Conditions.OPERAND_NOT_READY, message),
          generation,
          namespace,
          operands,
          previous);
    }
    if (gpuNodes == 0) {
      return build(
          Verdict.ready(
              Conditions.NO_GPU_NODES,
              "No GPU node in the cluster; watching for GPU nodes to join"),
          generation,
          namespace,
          operands,
          previous);
    }
    // No node count here: it would make every node joining a status write.
    return build(
        Verdict.ready(Conditions.RECONCILED, "All operands are ready"),
        generation,
        namespace,
        operands,
        previous);
  }

  /** Names the nodes (the first ten, then a count) and the ways out. */
  static String conflictMessage(List<String> nodes) {
    int shown = Math.min(nodes.size(), 10);
    String names = String.join(", ", nodes.subList(0, shown));
    if (nodes.size() > shown) {
      names += " and " + (nodes.size() - shown) + " more";
    }
    return "spec.devicePlugin and spec.draDriver would both serve the GPUs of "
        + (nodes.size() == 1 ? "node " : nodes.size() + " nodes: ")
        + names
        + "; nothing changed on "
        + (nodes.size() == 1 ? "it" : "them")
        + ". Label each nvidia.com/gpu.deploy.device-plugin=false (DRA) or"
        + " nvidia.com/gpu.deploy.dra-driver=false (device plugin), or disable one of the two";
  }

  private static ClusterPolicyStatus build(
      Verdict verdict,
      long generation,
      String namespace,
      List<OperandReadiness> operands,
      ClusterPolicyStatus previous) {
    return fill(new ClusterPolicyStatus(), verdict, generation, namespace, operands, previous);
  }

  /**
   * The driver was refused for some node pools (compatibility): not ready, with the reason naming
   * the pools and their nodes in both conditions; what was applied stays as it is in the status.
   */
  public static <S extends PolicyStatus> S driverRefused(
      S s, long generation, String message, PolicyStatus previous) {
    s.state = State.NOT_READY;
    s.conditions =
        List.of(
            condition(
                Conditions.READY,
                false,
                Conditions.DRIVER_INCOMPATIBLE,
                message,
                generation,
                previous),
            condition(
                Conditions.ERROR,
                true,
                Conditions.DRIVER_INCOMPATIBLE,
                message,
                generation,
                previous));
    return s;
  }

  /**
   * Fills a ClusterPolicy's or an NVIDIADriver's status: state, the Ready and Error conditions
   * (transition times kept from {@code previous} while unchanged) and the operands.
   */
  public static <S extends PolicyStatus> S fill(
      S s,
      Verdict verdict,
      long generation,
      String namespace,
      List<OperandReadiness> operands,
      PolicyStatus previous) {
    s.state = verdict.state();
    s.namespace = namespace;
    s.observedGeneration = generation;
    String reason = verdict.reason();
    String message = verdict.message();
    boolean error = verdict.error();
    List<Condition> conditions = new ArrayList<>();
    conditions.add(
        condition(Conditions.READY, verdict.ready(), reason, message, generation, previous));
    conditions.add(
        condition(
            Conditions.ERROR,
            error,
            error ? reason : Conditions.RECONCILED,
            error ? message : "No error",
            generation,
            previous));
    s.conditions = conditions;
    if (operands != null) {
      s.operands = operands.stream().map(PolicyStatusModel::operandStatus).toList();
    }
    return s;
  }

  private static OperandStatus operandStatus(OperandReadiness r) {
    OperandStatus o = new OperandStatus();
    o.name = r.name();
    o.state = r.ready() ? State.READY : State.NOT_READY;
    o.nodesReady = r.nodesReady();
    o.nodesDesired = r.nodesDesired();
    o.reason = r.ready() ? null : r.reason();
    return o;
  }

  private static Condition condition(
      String type,
      boolean status,
      String reason,
      String message,
      long generation,
      PolicyStatus previous) {
    String statusValue = status ? "True" : "False";
    // Keep the transition time while the condition's status stays the same (metav1 semantics).
    String since = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    if (previous != null && previous.conditions != null) {
      for (Condition c : previous.conditions) {
        if (type.equals(c.getType()) && statusValue.equals(c.getStatus())) {
          since = c.getLastTransitionTime() == null ? since : c.getLastTransitionTime();
        }
      }
    }
    return new ConditionBuilder()
        .withType(type)
        .withStatus(statusValue)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(generation)
        .withLastTransitionTime(since)
        .build();
  }

  /**
   * The status with the {@link Conditions#IGNORED_FIELDS} condition (True, listing each field and
   * why) when the policy sets fields this operator ignores; unchanged when it sets none.
   */
  public static <S extends PolicyStatus> S withIgnoredFields(
      S status, List<Violation> ignored, long generation, PolicyStatus previous) {
    if (ignored.isEmpty()) {
      return status;
    }
    List<Condition> conditions = new ArrayList<>(status.conditions);
    conditions.add(
        condition(
            Conditions.IGNORED_FIELDS,
            true,
            Conditions.IGNORED_FIELDS,
            ignored.stream().map(Violation::toString).collect(Collectors.joining("; ")),
            generation,
            previous));
    status.conditions = conditions;
    return status;
  }

  /**
   * Adds the {@link Conditions#REMEDIATION_PAUSED} condition when remediation is enabled (a null
   * budget: it is off, no condition).
   */
  public static <S extends PolicyStatus> S withRemediation(
      S status,
      io.gpuoperator.operator.remediation.RemediationSettings settings,
      io.gpuoperator.operator.remediation.RemediationBudget budget,
      long generation,
      PolicyStatus previous) {
    if (budget == null || !settings.enabled()) {
      return status;
    }
    String reason =
        budget.breakerOpen()
            ? Conditions.CIRCUIT_BREAKER_OPEN
            : settings.dryRun() ? Conditions.REMEDIATION_DRY_RUN : Conditions.REMEDIATION_ACTIVE;
    String message =
        budget.describe() + (settings.dryRun() ? " (dry run: nodes are not changed)" : "");
    List<Condition> conditions = new ArrayList<>(status.conditions);
    conditions.add(
        condition(
            Conditions.REMEDIATION_PAUSED,
            budget.breakerOpen(),
            reason,
            message,
            generation,
            previous));
    status.conditions = conditions;
    return status;
  }

  /** Whether two statuses say the same thing (so no write is needed). */
  public static boolean sameAs(PolicyStatus a, PolicyStatus b) {
    if (a == null || b == null) {
      return a == b;
    }
    JsonNode x = Serialization.jsonMapper().valueToTree(a);
    JsonNode y = Serialization.jsonMapper().valueToTree(b);
    return Objects.equals(x, y);
  }

  /** The Ready condition of a status, or null. */
  public static Condition ready(PolicyStatus s) {
    if (s == null || s.conditions == null) {
      return null;
    }
    return s.conditions.stream()
        .filter(c -> Conditions.READY.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }
}
