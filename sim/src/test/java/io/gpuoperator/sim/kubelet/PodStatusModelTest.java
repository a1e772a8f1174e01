package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodStatusModelTest {

  static ContainerSlot slot(String name, boolean init) {
    return new ContainerSlot(
        new ContainerBuilder().withName(name).withImage("img:1").build(), init);
  }

  static ContainerProcess exited(int code) {
    ContainerProcess p = new ContainerProcess();
    p.exit(code, null);
    return p;
  }

  @Test
  void pendingWhileInitRunsThenRunningAndReady() {
    ContainerSlot init = slot("init", true);
    ContainerSlot main = slot("main", false);
    init.process = new ContainerProcess();
    assertThat(PodStatusModel.phase(List.of(init), List.of(main), "Always")).isEqualTo("Pending");
    PodStatus s = status("Pending", init, main);
    assertThat(s.getContainerStatuses().get(0).getState().getWaiting().getReason())
        .isEqualTo("PodInitializing");
    assertThat(s.getInitContainerStatuses().get(0).getState().getRunning()).isNotNull();

    init.process.exit(0, null);
    main.process = new ContainerProcess();
    assertThat(PodStatusModel.phase(List.of(init), List.of(main), "Always")).isEqualTo("Running");
    main.process.markReady();
    s = status("Running", init, main);
    assertThat(s.getConditions())
        .filteredOn(c -> c.getType().equals("Ready"))
        .singleElement()
        .satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(s.getInitContainerStatuses().get(0).getReady()).isTrue();
    assertThat(s.getInitContainerStatuses().get(0).getState().getTerminated().getReason())
        .isEqualTo("Completed");
  }

  @Test
  void phasesFollowRestartPolicy() {
    ContainerSlot ok = slot("a", false);
    ok.process = exited(0);
    ContainerSlot bad = slot("b", false);
    bad.process = exited(1);
    assertThat(PodStatusModel.phase(List.of(), List.of(ok), "Never")).isEqualTo("Succeeded");
    assertThat(PodStatusModel.phase(List.of(), List.of(ok), "OnFailure")).isEqualTo("Succeeded");
    assertThat(PodStatusModel.phase(List.of(), List.of(ok, bad), "Never")).isEqualTo("Failed");
    assertThat(PodStatusModel.phase(List.of(), List.of(ok, bad), "Always")).isEqualTo("Running");
    ContainerSlot badInit = slot("i", true);
    badInit.process = exited(2);
    assertThat(PodStatusModel.phase(List.of(badInit), List.of(ok), "Never")).isEqualTo("Failed");
    assertThat(PodStatusModel.phase(List.of(badInit), List.of(ok), "Always")).isEqualTo("Pending");
  }

  @Test
  void crashedContainerWaitingForRestartShowsCrashLoopAndLastState() {
    ContainerSlot s = slot("main", false);
    s.process = exited(3);
    s.restartCount = 2;
    s.restartAt = Instant.now().plusSeconds(10);
    var status = PodStatusModel.containerStatus(s, "ContainerCreating");
    assertThat(status.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
    assertThat(status.getLastState().getTerminated().getExitCode()).isEqualTo(3);
    assertThat(status.getRestartCount()).isEqualTo(2);
    assertThat(status.getReady()).isFalse();
  }

  @Test
  void backOffDoublesUpToTheCap() {
    KubeletOptions o = KubeletOptions.defaults();
    assertThat(o.backOff(0)).isZero();
    assertThat(o.backOff(1).toSeconds()).isEqualTo(10);
    assertThat(o.backOff(2).toSeconds()).isEqualTo(20);
    assertThat(o.backOff(10).toSeconds()).isEqualTo(300);
  }

  /** The status of a pod of one init and one main container, as its kubelet reports it now. */
  private static PodStatus status(String phase, ContainerSlot init, ContainerSlot main) {
    return PodStatusModel.status(
        phase, List.of(init), List.of(main), new HashMap<>(), Instant.now(), "1.1.1.1", "10.0.0.1");
  }
}
