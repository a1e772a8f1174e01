package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonValue;

/** The overall state of a ClusterPolicy or NVIDIADriver, as the original reports it. */
public enum State {
  READY("ready"),
  NOT_READY("notReady"),
  IGNORED("ignored"),
  DISABLED("disabled");

  private final String value;

  State(String value) {
    this.value = value;
  }

  @JsonValue
  public String value() {
    return value;
  }
}
