package io.gpuoperator.node.exporter;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;

/**
 * One published collection, rendered at most once per format and encoding: the first scrape that
 * asks for a variant renders it and concurrent scrapes of the same variant wait for that one
 * rendering ({@link ConcurrentHashMap#computeIfAbsent}); later scrapes get the bytes as they are.
 */
public final class Exposition {
  /** A response body variant. */
  public record Variant(MetricsModel.Format format, boolean gzip) {}

  private static final PrometheusTextFormatWriter TEXT = PrometheusTextFormatWriter.create();
  private static final OpenMetricsTextFormatWriter OPENMETRICS =
      OpenMetricsTextFormatWriter.create();

  private final Function<MetricsModel.Format, MetricSnapshots> families;
  private final Map<Variant, byte[]> rendered = new ConcurrentHashMap<>();
  private final int series;

  /**
   * @param families the families of this collection for a format
   * @param series the number of GPU series in it (for the exporter's own gauge)
   */
  public Exposition(Function<MetricsModel.Format, MetricSnapshots> families, int series) {
    this.families = families;
    this.series = series;
  }

  /** The content type of a format. */
  public static String contentType(MetricsModel.Format format) {
    return writer(format).getContentType();
  }

  /** The body of a variant, rendered on first use. */
  public byte[] body(Variant v) {
    if (v.gzip()) {
      // The plain body first, outside the map's computation (no nested computeIfAbsent).
      byte[] plain = body(new Variant(v.format(), false));
      return rendered.computeIfAbsent(v, k -> gzip(plain));
    }
    return rendered.computeIfAbsent(v, this::render);
  }

  /** The GPU series in this collection. */
  public int series() {
    return series;
  }

  private static byte[] gzip(byte[] plain) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 4 + 64);
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(plain);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private byte[] render(Variant v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
    try {
      writer(v.format()).write(out, families.apply(v.format()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static ExpositionFormatWriter writer(MetricsModel.Format format) {
    return format == MetricsModel.Format.OPENMETRICS ? OPENMETRICS : TEXT;
  }
}
