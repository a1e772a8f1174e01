package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads every object the operator owns, and the live counterparts of rendered objects. */
final class LiveObjects {
  private LiveObjects() {}

  /** Whether the Prometheus Operator's ServiceMonitor CRD is installed. */
  static boolean serviceMonitorCrd(KubernetesClient client) {
    return client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(ManagedObjects.SERVICE_MONITOR_CRD)
            .get()
        != null;
  }

  /**
   * Every object with the ownership label ({@link ManagedObjects#list}, as the applier lists them),
   * plus rendered objects that exist without it (made by hand or by another tool: the operator
   * would overwrite them).
   */
  static List<HasMetadata> read(
      KubernetesClient client, String namespace, List<RenderedOperand> rendered, boolean smCrd) {
    Map<String, HasMetadata> out = new LinkedHashMap<>();
    for (GenericKubernetesResource managed : ManagedObjects.list(client, namespace, smCrd)) {
      out.put(ObjectDiff.key(managed), managed);
    }
    for (RenderedOperand op : rendered) {
      for (HasMetadata want : op.objects()) {
        if (out.containsKey(ObjectDiff.key(want))
            || (!smCrd && ManagedObjects.isMonitoring(want))) {
          continue;
        }
        var resources = client.genericKubernetesResources(want.getApiVersion(), want.getKind());
        String ns = want.getMetadata().getNamespace();
        GenericKubernetesResource have =
            (ns == null
                    ? resources.withName(want.getMetadata().getName())
                    : resources.inNamespace(ns).withName(want.getMetadata().getName()))
                .get();
        if (have != null) {
          out.put(ObjectDiff.key(have), have);
        }
      }
    }
    return new ArrayList<>(out.values());
  }
}
