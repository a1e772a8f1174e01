package io.gpuoperator.node.validator;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Documents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nvidia-fs, gdrcopy and nvidia-peermem steps: the module is loaded. A feature is on when the
 * validator's env says so ({@code GDS_ENABLED}, {@code GDRCOPY_ENABLED}, {@code
 * GPU_DIRECT_RDMA_ENABLED}) or the driver container's {@code .driver-ctr-ready} does (its startup
 * probe writes its own flags there, as the original's does); off, the step is skipped.
 */
final class GpuDirectValidation {
  private static final Logger LOG = LoggerFactory.getLogger(GpuDirectValidation.class);

  private final ValidatorConfig config;
  private final MarkerFiles markers;

  GpuDirectValidation(ValidatorConfig config) {
    this.config = config;
    this.markers = new MarkerFiles(config.validationsDir());
  }

  /** One feature's step on its own ({@code --component nvidia-fs} ...). */
  CompletableFuture<Verdict> validate(Waits waits, GpuDirect g) {
    return waits
        .call(this::driverFlags)
        .thenCompose(
            flags -> {
              if (!g.enabled(config, flags)) {
                return CompletableFuture.completedFuture(Verdict.skip(off(g)));
              }
              return Retry.until(
                      waits,
                      config,
                      g.component.cliName(),
                      () -> {
                        KernelModules.require(config.systemRoot(), g.module, g.feature);
                        return null;
                      })
                  .thenApply(v -> Verdict.ready(g.component, ""));
            });
  }

  /**
   * What the driver step does after the driver, as the original's does for a driver container: each
   * feature that container enabled has its module checked and its marker written; a disabled one's
   * stale marker is removed. A host driver has no such flags (none of these is checked).
   */
  CompletableFuture<Void> afterDriver(Waits waits) {
    return waits
        .call(this::driverFlags)
        .thenCompose(
            flags -> {
              CompletableFuture<Void> each = CompletableFuture.completedFuture(null);
              for (GpuDirect g : GpuDirect.values()) {
                each = each.thenCompose(v -> afterDriver(waits, flags, g));
              }
              return each;
            });
  }

  private CompletableFuture<Void> afterDriver(Waits waits, Predicate<String> flags, GpuDirect g) {
    String marker = g.component.marker();
    CompletableFuture<Void> deleted =
        waits.call(
            () -> {
              onMarker(marker, () -> markers.delete(marker));
              return null;
            });
    if (!flags.test(g.flag)) {
      return deleted;
    }
    LOG.info("{} is on in the driver container: checking {}", g.feature, g.module);
    return deleted
        .thenCompose(v -> validate(waits, g))
        .thenCompose(
            v ->
                waits.call(
                    () -> {
                      onMarker(marker, () -> markers.write(marker, v.content()));
                      return null;
                    }));
  }

  /** A change to a marker file, its I/O error the step's failure. */
  private void onMarker(String marker, MarkerChange change) throws ValidationException {
    try {
      change.run();
    } catch (IOException e) {
      throw new ValidationException(
          "cannot write " + markers.path(marker) + ": " + e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface MarkerChange {
    void run() throws IOException;
  }

  private String off(GpuDirect g) {
    return g.feature
        + " is off ("
        + g.flag
        + " is not true in the environment nor in "
        + markers.path(ValidatorEnv.DRIVER_CONTAINER_READY)
        + "): "
        + g.module
        + " is not checked";
  }

  /**
   * The {@code KEY: true} flags of {@code .driver-ctr-ready}; none when the file is missing or
   * empty (a host driver, or a driver container that reports none).
   */
  Predicate<String> driverFlags() throws ValidationException {
    Path file = markers.path(ValidatorEnv.DRIVER_CONTAINER_READY);
    try {
      if (!Files.isRegularFile(file) || Files.size(file) == 0) {
        return k -> false;
      }
      JsonNode root = Documents.read(file).root();
      return k -> root != null && root.path(k).asText("").equals("true");
    } catch (IOException | ConfigException e) {
      throw new ValidationException(
          "the driver container's flags in " + file + ": " + e.getMessage(), e);
    }
  }
}
