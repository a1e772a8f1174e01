package io.gpuoperator.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.operator.labels.Labels;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The state machine and the rollout limits against a small model of a cluster (kubelets finishing
 * deletions, the DaemonSet controller creating driver pods, pods becoming ready), with every step
 * of the operator and of the world in a random order, thousands of times: the limits hold at every
 * moment, no pod is evicted twice, a user's cordon survives, and every node ends on the new driver.
 */
class UpgradeInterleavingTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** One node of the model. */
  static final class WorldNode {
    final String name;
    final Map<String, String> labels = new HashMap<>();
    final Map<String, String> annotations = new HashMap<>();
    boolean unschedulable;
    final boolean userCordoned;
    String driverRevision = "v1";
    boolean driverExists = true;
    boolean driverReady = true;
    boolean driverTerminating;
    boolean validatorExists = true;
    boolean validatorReady = true;
    boolean validatorTerminating;
    final List<Pod> gpuPods = new ArrayList<>();

    WorldNode(String name, boolean userCordoned) {
      this.name = name;
      this.userCordoned = userCordoned;
      this.unschedulable = userCordoned;
      for (String c : UpgradeKeys.GPU_CLIENTS) {
        labels.put(Labels.deploy(c), Labels.TRUE);
      }
    }

    UpgradeNode view(String latest) {
      DriverPod d =
          driverExists
              ? new DriverPod(
                  "ns",
                  name + "-" + driverRevision,
                  "u",
                  driverTerminating,
                  driverReady,
                  driverRevision,
                  latest,
                  "d-" + driverRevision,
                  "d-" + latest,
                  null)
              : null;
      return new UpgradeNode(
          name,
          labels,
          annotations,
          unschedulable,
          true,
          d,
          validatorExists,
          validatorExists && validatorReady && !validatorTerminating);
    }

    void apply(Step s) {
      s.labels().forEach((k, v) -> put(labels, k, v));
      s.annotations().forEach((k, v) -> put(annotations, k, v));
      if (s.to() != null) {
        put(labels, UpgradeKeys.STATE, s.to() == UpgradeState.UNKNOWN ? null : s.to().label());
      }
      if (s.unschedulable() != null) {
        unschedulable = s.unschedulable();
      }
    }

    private static void put(Map<String, String> m, String k, String v) {
      if (v == null) {
        m.remove(k);
      } else {
        m.put(k, v);
      }
    }
  }

  /** The cluster model and the operator's actions on it. */
  static final class World implements NodeActions {
    final Map<String, WorldNode> nodes = new java.util.LinkedHashMap<>();
    final Map<String, Integer> evictions = new HashMap<>();
    final Random random;
    String latest = "v2";

    World(Random random) {
      this.random = random;
    }

    WorldNode node(String podNode) {
      return nodes.get(podNode);
    }

    @Override
    public List<Pod> podsOn(String node, String labelSelector) {
      return List.copyOf(nodes.get(node).gpuPods);
    }

    @Override
    public Eviction evict(Pod pod) {
      WorldNode n = node(pod.getSpec().getNodeName());
      if (!n.gpuPods.contains(pod)) {
        return Eviction.GONE;
      }
      if (random.nextInt(4) == 0) {
        return Eviction.BLOCKED; // a disruption budget says not now
      }
      evictions.merge(pod.getMetadata().getName(), 1, Integer::sum);
      pod.getMetadata().setDeletionTimestamp(NOW.toString());
      return Eviction.EVICTED;
    }

    @Override
    public void deleteDriverPod(DriverPod pod) {
      for (WorldNode n : nodes.values()) {
        if (pod.name().equals(n.name + "-" + n.driverRevision) && n.driverExists) {
          n.driverTerminating = true;
        }
      }
    }

    /**
     * One thing the rest of the cluster does, chosen at random among those that can happen now;
     * false when nothing can.
     */
    boolean act() {
      List<Runnable> possible = new ArrayList<>();
      for (WorldNode n : nodes.values()) {
        if (n.gpuPods.stream().anyMatch(p -> p.getMetadata().getDeletionTimestamp() != null)) {
          possible.add(
              () -> n.gpuPods.removeIf(p -> p.getMetadata().getDeletionTimestamp() != null));
        }
        if (n.driverTerminating) {
          possible.add(
              () -> {
                n.driverExists = false;
                n.driverTerminating = false;
              });
        } else if (!n.driverExists) {
          possible.add(
              () -> {
                n.driverExists = true;
                n.driverRevision = latest;
                n.driverReady = false;
              });
        } else if (!n.driverReady) {
          possible.add(() -> n.driverReady = true);
        }
        boolean wanted = Labels.TRUE.equals(n.labels.get(Labels.deploy("operator-validator")));
        if (!wanted && n.validatorExists) {
          possible.add(
              () -> {
                if (n.validatorTerminating) {
                  n.validatorExists = false;
                  n.validatorTerminating = false;
                } else {
                  n.validatorTerminating = true;
                }
              });
        } else if (wanted && !n.validatorExists) {
          possible.add(
              () -> {
                n.validatorExists = true;
                n.validatorReady = false;
              });
        } else if (n.validatorExists && !n.validatorReady && n.driverReady) {
          possible.add(() -> n.validatorReady = true);
        }
      }
      if (possible.isEmpty()) {
        return false;
      }
      possible.get(random.nextInt(possible.size())).run();
      return true;
    }
  }

  private long rounds;

  @Test
  void limitsHoldInEveryInterleavingAndEveryNodeEndsUpgraded() {
    for (int seed = 0; seed < 500; seed++) {
      run(seed);
    }
    // Every run took many steps of both kinds, not a trivial path.
    assertThat(rounds).isGreaterThan(500 * 20L);
  }

  private void run(int seed) {
    Random random = new Random(seed);
    World world = new World(random);
    int count = 3 + random.nextInt(8);
    for (int i = 0; i < count; i++) {
      WorldNode n = new WorldNode("n" + i, i == 1);
      for (int p = 0; p < random.nextInt(3); p++) {
        n.gpuPods.add(NodeUpgradeTest.gpuPod("n" + i + "-pod" + p, true));
        n.gpuPods.get(p).getSpec().setNodeName(n.name);
      }
      world.nodes.put(n.name, n);
    }
    int maxParallel = 1 + random.nextInt(3);
    UpgradePolicySpec spec = new UpgradePolicySpec();
    spec.autoUpgrade = true;
    spec.maxParallelUpgrades = maxParallel;
    spec.maxUnavailable = new IntOrString("50%");
    UpgradeSettings settings = UpgradeSettings.ofClusterPolicy(spec);
    int maxUnavailable = Math.max(1, UpgradeSettings.scaled(spec.maxUnavailable, count, "x"));
    NodeUpgrade machine = new NodeUpgrade(settings, world, NOW);

    for (int round = 0; round < 20_000 && !allDone(world); round++) {
      if (random.nextInt(3) == 0 || !world.act()) {
        pass(world, settings, machine);
      }
      long inProgress =
          world.nodes.values().stream()
              .filter(n -> UpgradeState.of(n.labels.get(UpgradeKeys.STATE)).inProgress())
              .count();
      long unavailable = world.nodes.values().stream().filter(n -> n.unschedulable).count();
      // Plain checks: AssertJ per round would dominate the run time.
      if (inProgress > maxParallel
          || unavailable > maxUnavailable
          || !world.nodes.get("n1").unschedulable) {
        throw new AssertionError(
            "seed %d round %d: %d in progress (max %d), %d unavailable (max %d), n1 cordoned %s"
                .formatted(
                    seed,
                    round,
                    inProgress,
                    maxParallel,
                    unavailable,
                    maxUnavailable,
                    world.nodes.get("n1").unschedulable));
      }
      rounds++;
    }
    assertThat(allDone(world)).as("seed %d: all done", seed).isTrue();
    assertThat(world.evictions.values())
        .as("seed %d: evictions per pod", seed)
        .allMatch(c -> c == 1);
    for (WorldNode n : world.nodes.values()) {
      assertThat(n.unschedulable).as("seed %d: %s cordon", seed, n.name).isEqualTo(n.userCordoned);
      assertThat(n.labels)
          .as("seed %d: %s clients back", seed, n.name)
          .doesNotContainValue(UpgradeKeys.PAUSED);
      assertThat(n.gpuPods).isEmpty();
    }
  }

  private static void pass(World world, UpgradeSettings settings, NodeUpgrade machine) {
    List<UpgradeNode> views = world.nodes.values().stream().map(n -> n.view(world.latest)).toList();
    UpgradeRollout rollout = UpgradeRollout.plan(views, settings);
    for (WorldNode n : world.nodes.values()) {
      boolean may = rollout.startable().contains(n.name);
      for (int i = 0; i < 12; i++) {
        Step s = machine.step(n.view(world.latest), may);
        n.apply(s);
        if (!s.moves() || s.failure() != null) {
          break;
        }
      }
    }
  }

  private static boolean allDone(World world) {
    return world.nodes.values().stream()
        .allMatch(
            n ->
                UpgradeState.UPGRADE_DONE.label().equals(n.labels.get(UpgradeKeys.STATE))
                    && n.driverRevision.equals(world.latest)
                    && n.driverExists
                    && !n.driverTerminating);
  }
}
