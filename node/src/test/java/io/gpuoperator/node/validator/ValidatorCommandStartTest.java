package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command started on a scheduler, as the simulator's in-process validators run it: the same
 * parsing, exit codes and messages as the blocking command, the exit code a future; cancelling it
 * stops the validation.
 */
class ValidatorCommandStartTest {
  @TempDir Path tmp;
  Path validations;
  Path driverRoot;
  Map<String, String> env = new HashMap<>();
  StringWriter out = new StringWriter();
  StringWriter err = new StringWriter();
  ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

  @BeforeEach
  void dirs() throws Exception {
    scheduler.setRemoveOnCancelPolicy(true);
    validations = Files.createDirectories(tmp.resolve("validations"));
    driverRoot = Files.createDirectories(tmp.resolve("driver"));
    env.put("VALIDATIONS_DIR", validations.toString());
    env.put("NVIDIA_DRIVER_ROOT", driverRoot.toString());
    env.put("GPU_BACKEND", "simulated");
    env.put("NODE_NAME", "node-a");
    env.put("SLEEP_INTERVAL", "1");
    env.put("VALIDATION_TIMEOUT", "0");
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  /** What the in-process host does: execute (parse, start), then the exit code to come. */
  CompletableFuture<Integer> start(String... args) {
    ValidatorCommand command =
        new ValidatorCommand(env, () -> null, DefaultBackendOpener::new, scheduler, null);
    CommandLine cl = CommandLines.configure(new CommandLine(command));
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int parsed = cl.execute(args);
    return command.begun() != null ? command.begun() : CompletableFuture.completedFuture(parsed);
  }

  @Test
  void theExitCodesAndMessagesAreTheBlockingCommands() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), ValidatorChainTest.PROFILE);
    assertThat(start("--component", "driver").get(10, TimeUnit.SECONDS)).isZero();
    assertThat(out.toString())
        .contains("driver validation passed: " + validations.resolve("driver-ready"));

    Files.writeString(driverRoot.resolve("node-profile.yaml"), TestNodes.yaml("gpus: []\n"));
    assertThat(start("--component", "driver").get(10, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(err.toString()).contains("validator: driver validation failed:", "no GPU found");

    // Bad input: picocli's exit code 2, nothing started.
    assertThat(start().get(10, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(err.toString()).contains("missing --component NAME");
  }

  @Test
  void cancellingTheExitCodeStopsTheWait() throws Exception {
    Files.writeString(driverRoot.resolve("node-profile.yaml"), ValidatorChainTest.PROFILE);
    CompletableFuture<Integer> code = start("--component", "driver", "--wait");
    Thread.sleep(1500);
    assertThat(code).isNotDone(); // waiting for the driver container's .driver-ctr-ready
    code.cancel(true);
    Files.writeString(validations.resolve(".driver-ctr-ready"), "");
    Thread.sleep(2500); // two polls
    assertThat(validations.resolve("driver-ready")).doesNotExist();
    assertThat(scheduler.getQueue()).isEmpty();
  }
}
