package io.gpuoperator.node.dra;

import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.kubelet.pluginregistration.v1.InfoRequest;
import io.gpuoperator.kubelet.pluginregistration.v1.PluginInfo;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationStatus;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationStatusResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the kubelet's plugin watcher asks on the registration socket: the plugin's type, driver
 * name, service socket and the DRAPlugin services it offers; then whether registration worked.
 */
final class PluginRegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(PluginRegistrationService.class);

  private final String driver;
  private final Path endpoint;
  private volatile boolean registered;

  /**
   * @param driver the DRA driver's name
   * @param endpoint the DRA plugin socket, as the kubelet sees it
   */
  PluginRegistrationService(String driver, Path endpoint) {
    this.driver = driver;
    this.endpoint = endpoint;
  }

  boolean registered() {
    return registered;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
    out.onNext(
        PluginInfo.newBuilder()
            .setType(DraConstants.PLUGIN_TYPE)
            .setName(driver)
            .setEndpoint(endpoint.toString())
            .addAllSupportedVersions(DraConstants.SERVICES)
            .build());
    out.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
    registered = status.getPluginRegistered();
    if (registered) {
      LOG.info("registered with the kubelet as DRA driver {}", driver);
    } else {
      LOG.error("the kubelet refused the registration of {}: {}", driver, status.getError());
    }
    out.onNext(RegistrationStatusResponse.getDefaultInstance());
    out.onCompleted();
  }
}
