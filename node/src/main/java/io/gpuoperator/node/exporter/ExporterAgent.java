package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.GpuBackend;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running exporter: the XID tracker, the pod-resources client, the collection loop and the HTTP
 * server over one GPU backend (which the caller owns). Used by {@code gpu-operator exporter} and by
 * the simulator, which runs it in-process per simulated node.
 */
public final class ExporterAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExporterAgent.class);

  private final XidTracker xids;
  private final PodResourcesClient pods;
  private final MetricsExporter exporter;
  private final ExporterServer server;

  private ExporterAgent(
      XidTracker xids, PodResourcesClient pods, MetricsExporter exporter, ExporterServer server) {
    this.xids = xids;
    this.pods = pods;
    this.exporter = exporter;
    this.server = server;
  }

  /**
   * Starts everything: reports once which fields of the list are not collected and which settings
   * have no effect, collects once (logging which listed fields a GPU cannot give), then serves.
   */
  public static ExporterAgent start(ExporterSettings s, FieldList fields, GpuBackend backend)
      throws IOException {
    return start(s, fields, backend, false);
  }

  /**
   * As {@link #start(ExporterSettings, FieldList, GpuBackend)}; with {@code sharedServer}, served
   * on the JVM's one {@link SelectorHttpServer} instead of a JDK {@code HttpServer} of its own
   * (three threads each): for the simulator's exporter per node.
   */
  public static ExporterAgent start(
      ExporterSettings s, FieldList fields, GpuBackend backend, boolean sharedServer)
      throws IOException {
    for (String skipped : fields.skipped()) {
      LOG.warn("field not collected: {}", skipped);
    }
    for (String note : s.notes()) {
      LOG.warn("{}", note);
    }
    XidTracker xids = new XidTracker(backend).start();
    PodResourcesClient pods = null;
    MetricsExporter exporter = null;
    try {
      if (s.kubernetes()) {
        Duration timeout =
            s.interval().compareTo(Duration.ofSeconds(10)) < 0
                ? s.interval()
                : Duration.ofSeconds(10);
        pods = new PodResourcesClient(s.podResourcesSocket(), timeout);
      }
      MetricsModel model = new MetricsModel(fields, new MetricsModel.Options(s.hostname()));
      exporter =
          new MetricsExporter(
              new GpuReader(backend, s.devices(), xids::lastXid, !fields.profiling().isEmpty()),
              pods == null ? null : pods::list,
              new PodAttribution(s.resourceNames()),
              model,
              s.interval(),
              Clock.systemUTC(),
              fields.skipped().size(),
              new UnavailableFields(fields.profiling()));
      exporter.collect();
      exporter.start();
      MetricsExporter e = exporter;
      ExporterServer server =
          sharedServer
              ? ExporterServer.startShared(s.address(), () -> e)
              : ExporterServer.start(s.address(), () -> e);
      LOG.info(
          "serving {} fields on port {} every {} ms ({} backend{})",
          fields.metrics().size(),
          server.port(),
          s.interval().toMillis(),
          backend.kind(),
          pods == null ? "" : ", pods from " + pods.socket());
      return new ExporterAgent(xids, pods, exporter, server);
    } catch (IOException | RuntimeException e) {
      xids.close();
      if (exporter != null) {
        exporter.close();
      }
      if (pods != null) {
        pods.close();
      }
      throw e;
    }
  }

  public int port() {
    return server.port();
  }

  public MetricsExporter exporter() {
    return exporter;
  }

  @Override
  public void close() {
    server.close();
    exporter.close();
    if (pods != null) {
      pods.close();
    }
    xids.close();
  }
}
