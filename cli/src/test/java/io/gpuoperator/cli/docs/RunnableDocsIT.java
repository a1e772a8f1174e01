package io.gpuoperator.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.docs.RunnableBlocks.Block;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.opentest4j.AssertionFailedError;

/**
 * Runs every shell block of {@code README.md} and {@code docs/} marked {@code sh runnable} (see
 * docs/README.md, "Runnable shell blocks") with {@code bash -euo pipefail} in the repository root,
 * one dynamic test per block named {@code file:line}; a block fails on a non-zero exit, on running
 * past {@link #TIMEOUT}, or when it holds no command, and the failure shows the block and its
 * output. An IT, not a unit test, because the blocks call {@code ./gpu-operator}, which runs the
 * shaded jar that {@code mvn package} builds after the unit tests; a few blocks start the simulator
 * and so the control plane, whose binaries it is given as the other ITs are.
 */
class RunnableDocsIT {
  static final Path ROOT = RunnableBlocksTest.ROOT;
  static final Duration TIMEOUT = Duration.ofMinutes(3);
  static final int OUTPUT_TAIL = 8_000;

  /** {@code -Drunnable.docs=docs/agents} runs only the blocks of files whose path contains it. */
  static final String ONLY_PROPERTY = "runnable.docs";

  @BeforeAll
  static void theJarIsBuilt() {
    assertThat(ROOT.resolve("cli/target/gpu-operator.jar"))
        .as("the shaded jar (mvn package), which ./gpu-operator runs")
        .exists();
  }

  @TestFactory
  Stream<DynamicTest> everyRunnableBlockSucceeds() {
    String only = System.getProperty(ONLY_PROPERTY, "");
    List<Block> blocks =
        RunnableBlocks.in(ROOT).stream().filter(b -> b.file().contains(only)).toList();
    assertThat(blocks)
        .as("runnable blocks in README.md and docs/ (%s=%s)", ONLY_PROPERTY, only)
        .isNotEmpty();
    return blocks.stream().map(b -> DynamicTest.dynamicTest(b.where(), () -> run(b)));
  }

  private static void run(Block block) throws IOException, InterruptedException {
    if (block.isEmpty()) {
      throw new AssertionFailedError(block.where() + ": marked runnable but holds no command");
    }
    Path output = Files.createTempFile("runnable-block", ".log");
    try {
      ProcessBuilder pb =
          new ProcessBuilder("bash", "-euo", "pipefail", "-c", block.script())
              .directory(ROOT.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      // The simulator's control-plane binaries, as the other ITs find them (the launcher would
      // otherwise ask scripts/k8s-binaries.sh, which builds them when they are not cached).
      Path bin = ControlPlane.defaultBinDir();
      if (Files.isExecutable(bin.resolve("kube-apiserver"))) {
        pb.environment().put("GPU_OPERATOR_K8S_BIN", bin.toString());
      }
      long start = System.nanoTime();
      Process p = pb.start();
      boolean ended = p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (!ended) {
        stop(p);
      }
      String took = String.format("%.1f s", (System.nanoTime() - start) / 1e9);
      if (!ended || p.exitValue() != 0) {
        String why = ended ? "exited " + p.exitValue() : "still running after " + TIMEOUT;
        throw new AssertionFailedError(
            block.where()
                + ": runnable block "
                + why
                + " ("
                + took
                + ")\n--- block ---\n"
                + block.script()
                + "--- output ---\n"
                + tail(output));
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** SIGTERM to the block's processes (the simulator cleans up on it), then SIGKILL. */
  private static void stop(Process p) throws InterruptedException {
    List<ProcessHandle> all = Stream.concat(p.descendants(), Stream.of(p.toHandle())).toList();
    all.forEach(ProcessHandle::destroy);
    for (ProcessHandle h : all) {
      h.onExit().completeOnTimeout(h, 30, TimeUnit.SECONDS).join();
    }
    all.forEach(ProcessHandle::destroyForcibly);
    p.waitFor(10, TimeUnit.SECONDS);
  }

  private static String tail(Path output) throws IOException {
    String s = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
    return s.length() <= OUTPUT_TAIL ? s : "...\n" + s.substring(s.length() - OUTPUT_TAIL);
  }
}
