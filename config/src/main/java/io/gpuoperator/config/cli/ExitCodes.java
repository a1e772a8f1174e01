package io.gpuoperator.config.cli;

/** The exit codes every command shares. */
public final class ExitCodes {
  /** Done (or, for a long-running command, stopped on request). */
  public static final int OK = 0;

  /** The environment failed: a cluster that does not answer, a driver that is missing. */
  public static final int FAILED = 1;

  /** Bad input: a flag, variable, file or field; the message names it. Nothing was started. */
  public static final int BAD_INPUT = 2;

  private ExitCodes() {}
}
