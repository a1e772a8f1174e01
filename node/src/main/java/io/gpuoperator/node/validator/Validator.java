package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one validation step like the original nvidia-validator: deletes its marker, optionally waits
 * for the previous step's marker, validates, and writes the marker on success; a step whose feature
 * is off on this node is skipped and writes none.
 */
public final class Validator {
  private static final Logger LOG = LoggerFactory.getLogger(Validator.class);

  private final ValidatorConfig config;
  private final GpuBackendOpener opener;
  private final Supplier<KubernetesClient> client;
  private final NodeLabels labels;
  private final DraValidation.PublishedDevices draDevices;
  private final MarkerFiles markers;

  public Validator(
      ValidatorConfig config, GpuBackendOpener opener, Supplier<KubernetesClient> client) {
    this(config, opener, client, NodeLabels.of(client, config.nodeName()));
  }

  /** With the node's labels from {@code labels} instead of the API server (tests). */
  Validator(
      ValidatorConfig config,
      GpuBackendOpener opener,
      Supplier<KubernetesClient> client,
      NodeLabels labels) {
    this(
        config,
        opener,
        client,
        labels,
        ResourceSliceDevices.of(client, config.nodeName(), DraValidation.DRIVER));
  }

  /** With the DRA driver's published devices from {@code draDevices} too (tests). */
  Validator(
      ValidatorConfig config,
      GpuBackendOpener opener,
      Supplier<KubernetesClient> client,
      NodeLabels labels,
      DraValidation.PublishedDevices draDevices) {
    if (config.component() == null) {
      throw new IllegalArgumentException("no component: pass --component NAME or set COMPONENT");
    }
    this.config = config;
    this.opener = opener;
    this.client = client;
    this.labels = labels;
    this.draDevices = draDevices;
    this.markers = new MarkerFiles(config.validationsDir());
  }

  /**
   * Runs the step; its marker exists afterwards exactly when it returns a ready verdict. A skipped
   * step (its feature off on this node) leaves no marker and succeeds.
   */
  public Verdict run() throws ValidationException, InterruptedException {
    Component c = config.component();
    delete(c.marker());
    if (c == Component.VGPU_MANAGER) {
      delete(Component.HOST_VGPU_MANAGER_READY);
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
    Verdict verdict = verdict(c);
    if (verdict.isSkipped()) {
      LOG.info(
          "{} validation on node {} skipped: {}; no {}",
          c.cliName(),
          config.nodeName(),
          verdict.skipped(),
          c.marker());
      return verdict;
    }
    try {
      markers.write(verdict.marker(), verdict.content());
    } catch (IOException e) {
      throw new ValidationException(
          "cannot write " + markers.path(verdict.marker()) + ": " + e.getMessage(), e);
    }
    LOG.info(
        "{} validation on node {} passed: {}",
        c.cliName(),
        config.nodeName(),
        markers.path(verdict.marker()));
    return verdict;
  }

  private Verdict verdict(Component c) throws ValidationException, InterruptedException {
    return switch (c) {
      case DRIVER -> {
        String content = new DriverValidation(config, opener).validate();
        if (!config.hostDriver()) {
          new GpuDirectValidation(config).afterDriver();
        }
        yield Verdict.ready(c, content);
      }
      case NVIDIA_FS, GDRCOPY, NVIDIA_PEERMEM ->
          new GpuDirectValidation(config).validate(GpuDirect.of(c));
      case TOOLKIT -> Verdict.ready(c, new ToolkitValidation(config).validate());
      case PLUGIN -> Verdict.ready(c, new PluginValidation(config, client.get()).validate());
      case CUDA -> Verdict.ready(c, new CudaValidation(config, client.get()).validate());
      case MOFED -> new MofedValidation(config, labels).validate();
      case DRA -> new DraValidation(config, labels, draDevices).validate();
      case CC_MANAGER -> new CcManagerValidation(config, labels).validate();
      case VFIO_PCI, VGPU_MANAGER, VGPU_DEVICES ->
          new SandboxValidation(config, labels, opener).validate(c);
    };
  }

  private void delete(String marker) throws ValidationException {
    try {
      markers.delete(marker);
    } catch (IOException e) {
      throw new ValidationException(
          "cannot remove " + markers.path(marker) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The marker to wait for: the step's {@link Component#after()}, or for the driver the driver
   * container's own readiness file (a host-installed driver has nothing to wait for).
   */
  String previousMarker(Component c) {
    if (c == Component.DRIVER) {
      return config.hostDriver() ? null : ValidatorEnv.DRIVER_CONTAINER_READY;
    }
    return c.after() == null ? null : c.after().marker();
  }
}
