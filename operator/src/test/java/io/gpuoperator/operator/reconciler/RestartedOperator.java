package io.gpuoperator.operator.reconciler;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The operator of an IT that SIGKILLs it at chosen moments and starts another: one {@link
 * OperatorProcess} at a time, each start numbered, its log named for the IT and the start ({@code
 * <name>-operator-<n>.log}), so that a failure names the process it happened in.
 */
final class RestartedOperator implements AutoCloseable {
  /** Starts the {@code n}-th process. */
  private interface Starter {
    OperatorProcess start(int n) throws IOException;
  }

  private final Starter starter;
  private int starts;
  private OperatorProcess current;

  private RestartedOperator(Starter starter) {
    this.starter = starter;
  }

  /** Starts the first process, reconciling in {@code namespace}. */
  static RestartedOperator start(Path kubeconfig, String namespace, String name)
      throws IOException {
    RestartedOperator o =
        new RestartedOperator(
            n -> OperatorProcess.start(kubeconfig, namespace, name + "-operator-" + n));
    o.startNext();
    return o;
  }

  /** The process running now. */
  OperatorProcess current() {
    return current;
  }

  /** How many processes were started, the running one included. */
  int starts() {
    return starts;
  }

  /**
   * SIGKILLs the running process ({@code moment} says where, in the test's output), starts the
   * next.
   */
  OperatorProcess killAndStart(String moment) throws IOException {
    current.kill();
    System.out.printf("operator %d SIGKILLed %s%n", starts, moment);
    return startNext();
  }

  private OperatorProcess startNext() throws IOException {
    current = starter.start(++starts);
    return current;
  }

  @Override
  public void close() {
    if (current != null) {
      current.close();
    }
  }
}
