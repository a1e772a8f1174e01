package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/** The kubelet's {@code Registration} service: validates a request and hands it on. */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
  /** An extended resource name: a domain-qualified name outside {@code kubernetes.io}. */
  private static final Pattern RESOURCE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  private final Consumer<RegisterRequest> onRegister;

  RegistrationService(Consumer<RegisterRequest> onRegister) {
    this.onRegister = onRegister;
  }

  @Override
  public void register(RegisterRequest request, StreamObserver<Empty> out) {
    String error = validate(request);
    if (error != null) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(error).asRuntimeException());
      return;
    }
    out.onNext(Empty.getDefaultInstance());
    out.onCompleted();
    // Like the kubelet, connect to the plugin after answering: the plugin may only start serving
    // once its registration call has returned.
    onRegister.accept(request);
  }

  /** The kubelet's checks, with its messages; null when the request is valid. */
  static String validate(RegisterRequest request) {
    if (!DevicePluginConstants.VERSION.equals(request.getVersion())) {
      return "Requested device plugin version \""
          + request.getVersion()
          + "\" is not supported. Supported versions are ["
          + DevicePluginConstants.VERSION
          + "]";
    }
    String name = request.getResourceName();
    if (!RESOURCE_NAME.matcher(name).matches()
        || name.startsWith("kubernetes.io/")
        || name.contains(".kubernetes.io/")) {
      return "invalid name of device plugin socket: " + name + " (not an extended resource name)";
    }
    String endpoint = request.getEndpoint();
    if (endpoint.isEmpty() || endpoint.contains("/")) {
      return "invalid endpoint \"" + endpoint + "\": expected a socket file name in the plugin dir";
    }
    return null;
  }
}
