package io.gpuoperator.operator.runtime;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;

/**
 * {@code %resource} in a Logback pattern: the resource being reconciled, as JOSDK puts it in the
 * MDC ({@code resource.kind}, {@code resource.namespace}, {@code resource.name}), written {@code
 * "ClusterPolicy cluster-policy: "} or {@code "DaemonSet gpu-operator/nvidia-driver: "}; empty
 * outside a reconcile.
 */
public class ResourceConverter extends ClassicConverter {
  /** JOSDK's MDC value for a cluster-scoped resource. */
  private static final String NO_NAMESPACE = "no namespace";

  @Override
  public String convert(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    String name = mdc.get("resource.name");
    if (name == null) {
      return "";
    }
    String kind = mdc.getOrDefault("resource.kind", "");
    String ns = mdc.get("resource.namespace");
    String ref = ns == null || ns.isEmpty() || NO_NAMESPACE.equals(ns) ? name : ns + "/" + name;
    return (kind.isEmpty() ? "" : kind + " ") + ref + ": ";
  }
}
