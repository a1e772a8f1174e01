package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
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
  private final Supplier<NodeWatch> nodes;
  private final NodeLabels labels;
  private final DraValidation.PublishedDevices draDevices;
  private final MarkerFiles markers;

  /** Hears of this node through {@code client} (a GET, or an informer on the one Node). */
  public Validator(
      ValidatorConfig config, GpuBackendOpener opener, Supplier<KubernetesClient> client) {
    this(config, opener, client, () -> NodeWatch.informer(client.get()));
  }

  /** Hears of this node through {@code nodes} (the simulator's shared watch of every Node). */
  public Validator(
      ValidatorConfig config,
      GpuBackendOpener opener,
      Supplier<KubernetesClient> client,
      Supplier<NodeWatch> nodes) {
    this(
        config,
        opener,
        client,
        nodes,
        NodeLabels.of(nodes, config.nodeName()),
        ResourceSliceDevices.of(client, config.nodeName(), DraValidation.DRIVER));
  }

  /**
   * With the node's labels from {@code labels} and the DRA driver's published devices from {@code
   * draDevices} instead of the API server (tests).
   */
  Validator(
      ValidatorConfig config,
      GpuBackendOpener opener,
      Supplier<KubernetesClient> client,
      NodeLabels labels,
      DraValidation.PublishedDevices draDevices) {
    this(config, opener, client, () -> NodeWatch.informer(client.get()), labels, draDevices);
  }

  private Validator(
      ValidatorConfig config,
      GpuBackendOpener opener,
      Supplier<KubernetesClient> client,
      Supplier<NodeWatch> nodes,
      NodeLabels labels,
      DraValidation.PublishedDevices draDevices) {
    if (config.component() == null) {
      throw new IllegalArgumentException("no component: pass --component NAME or set COMPONENT");
    }
    this.config = config;
    this.opener = opener;
    this.client = client;
    this.nodes = nodes;
    this.labels = labels;
    this.draDevices = draDevices;
    this.markers = new MarkerFiles(config.validationsDir());
  }

  /**
   * Runs the step, blocking (the real pod runs one validator): {@link #start} on a scheduler thread
   * of its own; an interrupt cancels the step. Its marker exists afterwards exactly when it returns
   * a ready verdict. A skipped step (its feature off on this node) leaves no marker and succeeds.
   */
  public Verdict run() throws ValidationException, InterruptedException {
    return Waits.blocking(this::start);
  }

  /**
   * Starts the step, holding no thread while it waits: its checks run on {@code scheduler} (they
   * may block there briefly: a file, an API call), the waits between them are scheduled tasks and
   * watch events. The future fails with the {@link ValidationException} that {@link #run} throws.
   * Cancelling it (the container killed) stops the polls, closes the watches, and deletes the cuda
   * step's workload pod.
   */
  public CompletableFuture<Verdict> start(ScheduledExecutorService scheduler) {
    Waits waits = new Waits(scheduler);
    Component c = config.component();
    return waits.outcome(
        waits
            .call(
                () -> {
                  delete(c.marker());
                  if (c == Component.VGPU_MANAGER) {
                    delete(Component.HOST_VGPU_MANAGER_READY);
                  }
                  return null;
                })
            .thenCompose(v -> previous(waits, c))
            .thenCompose(v -> verdict(waits, c))
            .thenCompose(verdict -> waits.call(() -> recorded(c, verdict))));
  }

  /** With {@code --wait}, the previous step's marker (the driver's: forever). */
  private CompletableFuture<Void> previous(Waits waits, Component c) {
    String previous = config.withWait() ? previousMarker(c) : null;
    if (previous == null) {
      return CompletableFuture.completedFuture(null);
    }
    LOG.info(
        "{} validation on node {}: waiting for {}",
        c.cliName(),
        config.nodeName(),
        markers.path(previous));
    return markers.await(
        waits, previous, config.poll(), c == Component.DRIVER ? Duration.ZERO : config.timeout());
  }

  /** Writes the verdict's marker, unless the step was skipped. */
  private Verdict recorded(Component c, Verdict verdict) throws ValidationException {
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

  private CompletableFuture<Verdict> verdict(Waits waits, Component c) {
    return switch (c) {
      case DRIVER ->
          waits
              .call(() -> Verdict.ready(c, new DriverValidation(config, opener).validate()))
              .thenCompose(
                  ready ->
                      config.hostDriver()
                          ? CompletableFuture.completedFuture(ready)
                          : new GpuDirectValidation(config)
                              .afterDriver(waits)
                              .thenApply(v -> ready));
      case NVIDIA_FS, GDRCOPY, NVIDIA_PEERMEM ->
          new GpuDirectValidation(config).validate(waits, GpuDirect.of(c));
      case TOOLKIT ->
          new ToolkitValidation(config).validate(waits).thenApply(s -> Verdict.ready(c, s));
      case PLUGIN ->
          waits
              .call(nodes::get)
              .thenCompose(n -> new PluginValidation(config, n).validate(waits))
              .thenApply(s -> Verdict.ready(c, s));
      case CUDA ->
          waits
              .call(() -> new CudaValidation(config, client.get(), nodes.get()))
              .thenCompose(cuda -> cuda.validate(waits))
              .thenApply(s -> Verdict.ready(c, s));
      case MOFED -> new MofedValidation(config, labels).validate(waits);
      case DRA -> new DraValidation(config, labels, draDevices).validate(waits);
      case CC_MANAGER -> new CcManagerValidation(config, labels).validate(waits);
      case VFIO_PCI, VGPU_MANAGER, VGPU_DEVICES ->
          new SandboxValidation(config, labels, opener).validate(waits, c);
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
