package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An in-process agent started as container {@code c} of pod ns/p on node n1, for the runner's
 * tests.
 */
final class InProcessContainers {
  private InProcessContainers() {}

  static ContainerProcess start(Path dir, String name, InProcessAgent agent) throws Exception {
    Pod pod =
        new PodBuilder().withNewMetadata().withName("p").withNamespace("ns").endMetadata().build();
    ContainerContext ctx =
        new ContainerContext(
            "n1",
            NodeDirs.create(dir, "n1"),
            pod,
            new ContainerBuilder().withName("c").withArgs("gpu-operator", name).build(),
            false,
            Map.of(),
            null,
            KubeletThreads.timer(),
            null,
            null);
    return new InProcessContainerRunner(name, agent, false).start(ctx, List.of());
  }

  /** The live threads whose names start with {@code prefix} (an agent's: agent-NAME-n1-c). */
  static long threadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .count();
  }
}
