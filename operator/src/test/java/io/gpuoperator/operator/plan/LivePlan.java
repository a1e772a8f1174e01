package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.sim.controlplane.ControlPlane;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** Runs {@code plan -f POLICY --kubeconfig ... -n NS} against a test control plane, for ITs. */
public final class LivePlan {
  private LivePlan() {}

  /** The plan's output; fails the test when plan exits non-zero (with its stderr). */
  public static String run(ControlPlane cp, Path policy, String ns) {
    PlanCommand command = new PlanCommand();
    command.env = Map.of(); // not this JVM's environment (an OPERATOR_NAMESPACE or *_IMAGE there)
    CommandLine cmd = new CommandLine(command);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int rc =
        cmd.execute("-f", policy.toString(), "--kubeconfig", cp.kubeconfig().toString(), "-n", ns);
    assertThat(rc).as(err.toString()).isZero();
    return out.toString();
  }
}
