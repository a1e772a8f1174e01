package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads every object the operator owns, and the live counterparts of rendered objects. */
final class LiveObjects {
  private LiveObjects() {}

  /** The Prometheus Operator's kinds whose CRD is installed, as the operator watches them. */
  static Set<String> monitoringKinds(KubernetesClient client) {
    Set<String> kinds = new HashSet<>();
    if (crd(client, ManagedObjects.SERVICE_MONITOR_CRD)) {
      kinds.add(ManagedObjects.SERVICE_MONITOR);
    }
    if (crd(client, ManagedObjects.PROMETHEUS_RULE_CRD)) {
      kinds.add(ManagedObjects.PROMETHEUS_RULE);
    }
    return kinds;
  }

  private static boolean crd(KubernetesClient client, String name) {
    return client.apiextensions().v1().customResourceDefinitions().withName(name).get() != null;
  }

  /**
   * Every object with the ownership label ({@link ManagedObjects#list}, as the applier lists them),
   * plus rendered objects that exist without it (made by hand or by another tool: the operator
   * would overwrite them).
   */
  static List<HasMetadata> read(
      KubernetesClient client,
      String namespace,
      List<RenderedOperand> rendered,
      Set<String> monitoringKinds) {
    Map<String, HasMetadata> out = new LinkedHashMap<>();
    for (GenericKubernetesResource managed :
        ManagedObjects.list(client, namespace, monitoringKinds)) {
      out.put(ObjectDiff.key(managed), managed);
    }
    for (RenderedOperand op : rendered) {
      for (HasMetadata want : op.objects()) {
        if (out.containsKey(ObjectDiff.key(want))
            || !ManagedObjects.present(want.getApiVersion(), want.getKind(), monitoringKinds)) {
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
