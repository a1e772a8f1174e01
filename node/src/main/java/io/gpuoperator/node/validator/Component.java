package io.gpuoperator.node.validator;

import java.util.Locale;

/**
 * The validation steps, in the order of the original's validator init chain (driver, toolkit, cuda,
 * plugin): each writes its marker file, and with {@code --wait} each waits for the previous step's
 * marker first.
 */
public enum Component {
  DRIVER("driver-ready"),
  TOOLKIT("toolkit-ready"),
  CUDA("cuda-ready"),
  PLUGIN("plugin-ready");

  private final String marker;

  Component(String marker) {
    this.marker = marker;
  }

  /** The marker file this step writes into the validations directory. */
  public String marker() {
    return marker;
  }

  /** The step before this one; null for the driver. */
  public Component previous() {
    return ordinal() == 0 ? null : values()[ordinal() - 1];
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses driver|toolkit|cuda|plugin. */
  public static Component parse(String name) {
    for (Component c : values()) {
      if (c.cliName().equals(name.trim().toLowerCase(Locale.ROOT))) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "unknown component "
            + io.gpuoperator.config.Values.quote(name)
            + "; expected driver, toolkit, cuda or plugin");
  }
}
