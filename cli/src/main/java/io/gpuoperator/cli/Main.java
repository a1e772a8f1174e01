package io.gpuoperator.cli;

/** Entry point of gpu-operator.jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(GpuOperatorCommand.commandLine().execute(args));
  }
}
