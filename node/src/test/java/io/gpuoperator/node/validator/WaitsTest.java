package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The validator's waits without a thread of their own: retries and marker polls pass after some
 * attempts, time out with the messages the blocking ones had, try once without {@code --wait}, and
 * stop (polls no longer scheduled, the watch's informer closed) when the run is cancelled.
 */
class WaitsTest {
  @TempDir Path tmp;

  /** One thread for every wait of a test: a wait that held it would hold up the others. */
  final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

  {
    scheduler.setRemoveOnCancelPolicy(true);
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  ValidatorConfig config(boolean wait, Duration timeout) {
    return ValidatorConfig.fromEnv(Map.of("VALIDATIONS_DIR", tmp.toString()))
        .withWait(wait)
        .withTimeouts(timeout, Duration.ofMillis(100));
  }

  /** A check that fails {@code failures} times with the same message, then passes. */
  static Waits.Check<String> passingAfter(int failures, AtomicInteger attempts) {
    return () -> {
      if (attempts.incrementAndGet() <= failures) {
        throw new ValidationException("module nvidia_fs is not loaded");
      }
      return "ok";
    };
  }

  @Test
  void aRetryPassesAfterSomeAttemptsAndLogsEachNewReasonOnce() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(Retry.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      AtomicInteger attempts = new AtomicInteger();
      CompletableFuture<String> f =
          Retry.until(
              new Waits(scheduler),
              config(true, Duration.ofSeconds(30)),
              "nvidia-fs",
              passingAfter(3, attempts));
      assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
      assertThat(attempts).hasValue(4);
      assertThat(logged.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .containsExactly(
              "nvidia-fs not ready yet (module nvidia_fs is not loaded); checking again every 0 s");
    } finally {
      logger.detachAppender(logged);
    }
  }

  @Test
  void waitsShareOneThreadBecauseNoneHoldsItBetweenChecks() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    Waits waits = new Waits(scheduler);
    List<CompletableFuture<String>> all = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String id = "w" + i;
      AtomicInteger attempts = new AtomicInteger();
      Waits.Check<String> check = passingAfter(2, attempts);
      all.add(
          Retry.until(
              waits,
              config(true, Duration.ofSeconds(30)),
              id,
              () -> {
                events.add(id + "#" + (attempts.get() + 1));
                return check.run();
              }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    // Every wait's first check ran before any wait's second: none slept on the only thread.
    assertThat(events.subList(0, 10)).allMatch(e -> e.endsWith("#1"));
    assertThat(events).hasSize(30);
  }

  @Test
  void aRetryThatNeverPassesFailsWithItsLastReasonAfterTheTimeout() {
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> f =
        Retry.until(
            new Waits(scheduler),
            config(true, Duration.ofMillis(500)),
            "nvidia-fs",
            passingAfter(Integer.MAX_VALUE, attempts));
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ValidationException.class)
        .hasMessage("module nvidia_fs is not loaded");
    assertThat(attempts.get()).isGreaterThan(1);
  }

  @Test
  void withoutWaitARetryTriesOnce() {
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<String> f =
        Retry.until(
            new Waits(scheduler),
            config(false, Duration.ofSeconds(30)),
            "nvidia-fs",
            passingAfter(1, attempts));
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .cause()
        .hasMessage("module nvidia_fs is not loaded");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void aMarkerIsAwaitedUntilItExistsOrTheTimeoutWithTheSameMessage() throws Exception {
    MarkerFiles markers = new MarkerFiles(tmp);
    CompletableFuture<Void> awaited =
        markers.await(new Waits(scheduler), "toolkit-ready", Duration.ofMillis(100), Duration.ZERO);
    Thread.sleep(300);
    assertThat(awaited).isNotDone();
    markers.write("toolkit-ready", "");
    awaited.get(10, TimeUnit.SECONDS);

    CompletableFuture<Void> timedOut =
        markers.await(
            new Waits(scheduler), "driver-ready", Duration.ofMillis(100), Duration.ofSeconds(1));
    assertThatThrownBy(() -> timedOut.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(ValidationException.class)
        .hasMessage("timed out after 1 s waiting for " + tmp.resolve("driver-ready"));
  }

  @Test
  void cancellingTheRunStopsItsPolling() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    Waits waits = new Waits(scheduler);
    CompletableFuture<String> run =
        waits.outcome(
            Retry.until(
                waits,
                config(true, Duration.ZERO),
                "nvidia-fs",
                passingAfter(Integer.MAX_VALUE, attempts)));
    await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() >= 2);
    run.cancel(true);
    int after = attempts.get();
    Thread.sleep(500); // five poll intervals
    assertThat(attempts.get()).isLessThanOrEqualTo(after + 1); // at most the one in progress
    await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.getQueue().isEmpty());
    // A wait begun after the end is cancelled at once, and runs no check.
    CompletableFuture<String> late = waits.call(() -> "checked");
    assertThat(late).isCancelled();
  }

  /** A Node resource whose only method, {@code informOnCondition}, hands out {@code met}. */
  @SuppressWarnings("unchecked")
  static Resource<Node> watched(
      CompletableFuture<List<Node>> met, List<Predicate<List<Node>>> conditions) {
    return (Resource<Node>)
        Proxy.newProxyInstance(
            WaitsTest.class.getClassLoader(),
            new Class<?>[] {Resource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("informOnCondition")) {
                conditions.add((Predicate<List<Node>>) args[0]);
                return met;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Test
  void aWatchCompletesWithTheObjectItsInformerFoundOrEmptyAtTheTimeout() throws Exception {
    Node node = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();
    CompletableFuture<List<Node>> met = new CompletableFuture<>();
    List<Predicate<List<Node>>> conditions = new CopyOnWriteArrayList<>();
    CompletableFuture<Optional<Watches.Holder<Node>>> found =
        Watches.until(
            new Waits(scheduler), watched(met, conditions), n -> n != null, Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(10)).until(() -> !conditions.isEmpty());
    assertThat(conditions.get(0).test(List.of())).isFalse(); // no object: null for the condition
    assertThat(conditions.get(0).test(List.of(node))).isTrue();
    met.complete(List.of(node));
    assertThat(found.get(10, TimeUnit.SECONDS)).contains(new Watches.Holder<>(node));

    CompletableFuture<List<Node>> never = new CompletableFuture<>();
    CompletableFuture<Optional<Watches.Holder<Node>>> timedOut =
        Watches.until(
            new Waits(scheduler), watched(never, conditions), n -> false, Duration.ofMillis(300));
    assertThat(timedOut.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(never).isCancelled(); // the informer is stopped after a timeout too
  }

  @Test
  void cancellingTheRunClosesItsWatch() throws Exception {
    CompletableFuture<List<Node>> met = new CompletableFuture<>();
    List<Predicate<List<Node>>> conditions = new CopyOnWriteArrayList<>();
    Waits waits = new Waits(scheduler);
    CompletableFuture<Optional<Watches.Holder<Node>>> run =
        waits.outcome(
            Watches.until(waits, watched(met, conditions), n -> false, Duration.ofMinutes(10)));
    await().atMost(Duration.ofSeconds(10)).until(() -> !conditions.isEmpty());
    run.cancel(true);
    // fabric8 stops the informer when this future completes (informOnCondition's contract).
    assertThat(met).isCancelled();
    await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.getQueue().isEmpty());
    assertThatThrownBy(run::join).isInstanceOf(CancellationException.class);
  }

  @Test
  void theBlockingFormRethrowsTheValidationFailure() throws Exception {
    Path marker = Files.createDirectories(tmp.resolve("v"));
    assertThatThrownBy(
            () ->
                Waits.blocking(
                    s ->
                        new MarkerFiles(marker)
                            .await(
                                new Waits(s), "x", Duration.ofMillis(100), Duration.ofSeconds(1))))
        .isInstanceOf(ValidationException.class)
        .hasMessage("timed out after 1 s waiting for " + marker.resolve("x"));
  }

  @Test
  void anInterruptCancelsTheBlockingRun() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                Waits.blocking(
                    s ->
                        new Waits(s)
                            .poll(
                                Duration.ofMillis(100),
                                () -> {
                                  attempts.incrementAndGet();
                                  throw new ValidationException("not yet");
                                },
                                e -> true));
                thrown.complete(null);
              } catch (Throwable e) {
                thrown.complete(e);
              }
            });
    t.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() >= 2);
    t.interrupt();
    assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    int after = attempts.get();
    Thread.sleep(500);
    assertThat(attempts.get()).isEqualTo(after);
  }
}
