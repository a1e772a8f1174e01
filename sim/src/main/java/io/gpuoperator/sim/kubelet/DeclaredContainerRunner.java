package io.gpuoperator.sim.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Simulates a container we do not implement (the NVIDIA driver, DCGM ...) by its {@link
 * DeclaredBehaviour}: waits for marker files, becomes ready, writes marker files, exits.
 */
public final class DeclaredContainerRunner implements ContainerRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DeclaredContainerRunner.class);
  static final Duration POLL = Duration.ofMillis(100);

  private final DeclaredBehaviour behaviour;

  public DeclaredContainerRunner(DeclaredBehaviour behaviour) {
    this.behaviour = behaviour;
  }

  public DeclaredBehaviour behaviour() {
    return behaviour;
  }

  @Override
  public ContainerProcess start(ContainerContext ctx) {
    ContainerProcess p = new ContainerProcess();
    AtomicReference<ScheduledFuture<?>> task = new AtomicReference<>();
    List<Path> written = new ArrayList<>();
    Path validations = ctx.dirs().validations();
    Runnable tick =
        new Runnable() {
          Instant began;

          @Override
          public void run() {
            try {
              if (p.hasExited()) {
                cancel(task);
                return;
              }
              if (began == null) {
                for (String f : behaviour.waitFor()) {
                  if (!Entrypoint.present(validations, f)) {
                    return;
                  }
                }
                began = Instant.now();
              }
              Instant now = Instant.now();
              if (behaviour.ready()
                  && !p.isReady()
                  && !now.isBefore(began.plus(behaviour.readyAfter()))) {
                writeMarkers(ctx, written);
                p.markReady();
              }
              if (behaviour.exitAfter() == null && (p.isReady() || !behaviour.ready())) {
                // Nothing more to time: a running container's tick would wake the shared
                // timer ten times a second for good (7,500 a second at 1,000 nodes).
                cancel(task);
                return;
              }
              if (behaviour.exitAfter() != null
                  && !now.isBefore(began.plus(behaviour.exitAfter()))) {
                if (behaviour.exitCode() == 0 && written.isEmpty()) {
                  writeMarkers(ctx, written);
                }
                cancel(task);
                p.exit(
                    behaviour.exitCode(),
                    behaviour.exitCode() == 0 ? null : "declared failure on " + ctx.nodeName());
              }
            } catch (IOException | RuntimeException e) {
              LOG.warn(
                  "pod {}/{} container {} on node {}: {}",
                  ctx.pod().getMetadata().getNamespace(),
                  ctx.pod().getMetadata().getName(),
                  ctx.container().getName(),
                  ctx.nodeName(),
                  e.toString());
              cancel(task);
              p.exit(1, e.toString());
            }
          }
        };
    p.onStop(
        () -> {
          cancel(task);
          // Like the driver container's preStop: its markers and files go away with it.
          for (Path f : written) {
            try {
              Files.deleteIfExists(f);
            } catch (IOException e) {
              LOG.warn("cannot remove marker {}: {}", f, e.toString());
            }
          }
        });
    task.set(ctx.timer().scheduleWithFixedDelay(tick, 0, POLL.toMillis(), TimeUnit.MILLISECONDS));
    return p;
  }

  private void writeMarkers(ContainerContext ctx, List<Path> written) throws IOException {
    Path dir = ctx.dirs().validations();
    for (String f : behaviour.writes()) {
      written.add(writeAtomically(dir.resolve(f), ""));
    }
    for (var e : behaviour.files().entrySet()) {
      written.add(writeAtomically(ctx.dirs().hostPath(e.getKey()), e.getValue()));
    }
  }

  private static Path writeAtomically(Path target, String content) throws IOException {
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
    Files.writeString(tmp, content);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return target;
  }

  private static void cancel(AtomicReference<ScheduledFuture<?>> task) {
    ScheduledFuture<?> f = task.get();
    if (f != null) {
      f.cancel(false);
    }
  }
}
