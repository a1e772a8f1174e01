package io.gpuoperator.node.deviceplugin;

/** An Allocate request the plugin refuses; the message is what the kubelet reports. */
public final class AllocationRefusedException extends Exception {
  private static final long serialVersionUID = 1L;

  public AllocationRefusedException(String message) {
    super(message);
  }
}
