package io.gpuoperator.cli;

import io.gpuoperator.operator.runtime.ZapLogging;

/**
 * Entry point of gpu-operator.jar: the command it runs owns the process's logging ({@link
 * ZapLogging}).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(ZapLogging.entryPoint(GpuOperatorCommand.commandLine()).execute(args));
  }
}
