package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one validation step like the original nvidia-validator: deletes its marker, optionally waits
 * for the previous step's marker, validates, and writes the marker on success.
 */
public final class Validator {
  private static final Logger LOG = LoggerFactory.getLogger(Validator.class);

  private final ValidatorConfig config;
  private final GpuBackendOpener opener;
  private final Supplier<KubernetesClient> client;
  private final MarkerFiles markers;

  public Validator(
      ValidatorConfig config, GpuBackendOpener opener, Supplier<KubernetesClient> client) {
    if (config.component() == null) {
      throw new IllegalArgumentException(
          "no component: pass --component driver|toolkit|cuda|plugin or set COMPONENT");
    }
    this.config = config;
    this.opener = opener;
    this.client = client;
    this.markers = new MarkerFiles(config.validationsDir());
  }

  /** Runs the step; the marker exists afterwards exactly when it returns normally. */
  public void run() throws ValidationException, InterruptedException {
    Component c = config.component();
    try {
      markers.delete(c.marker());
    } catch (IOException e) {
      throw new ValidationException(
          "cannot remove " + markers.path(c.marker()) + ": " + e.getMessage(), e);
    }
    if (config.withWait()) {
      String previous = previousMarker(c);
      if (previous != null) {
        LOG.info(
            "{} validation on node {}: waiting for {}",
            c.cliName(),
            config.nodeName(),
            markers.path(previous));
        markers.await(
            previous,
            config.poll(),
            c == Component.DRIVER ? java.time.Duration.ZERO : config.timeout());
      }
    }
    String content =
        switch (c) {
          case DRIVER -> new DriverValidation(config, opener).validate();
          case TOOLKIT -> new ToolkitValidation(config).validate();
          case PLUGIN -> new PluginValidation(config, client.get()).validate();
          case CUDA -> new CudaValidation(config, client.get()).validate();
        };
    try {
      markers.write(c.marker(), content);
    } catch (IOException e) {
      throw new ValidationException(
          "cannot write " + markers.path(c.marker()) + ": " + e.getMessage(), e);
    }
    LOG.info(
        "{} validation on node {} passed: {}",
        c.cliName(),
        config.nodeName(),
        markers.path(c.marker()));
  }

  /**
   * The marker to wait for: the previous step's, or for the driver the driver container's own
   * readiness file (a host-installed driver has nothing to wait for).
   */
  String previousMarker(Component c) {
    if (c == Component.DRIVER) {
      return config.hostDriver() ? null : ValidatorEnv.DRIVER_CONTAINER_READY;
    }
    return c.previous().marker();
  }
}
