package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the live counterparts of rendered objects, and every object the operator manages. */
final class LiveObjects {
  static final String SERVICE_MONITOR_CRD = "servicemonitors.monitoring.coreos.com";

  private LiveObjects() {}

  /** Whether the Prometheus Operator's ServiceMonitor CRD is installed. */
  static boolean serviceMonitorCrd(KubernetesClient client) {
    return client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(SERVICE_MONITOR_CRD)
            .get()
        != null;
  }

  /** Live objects matching rendered ones, plus managed objects (hash annotation) of our kinds. */
  static List<HasMetadata> read(
      KubernetesClient client, String namespace, List<RenderedOperand> rendered, boolean smCrd) {
    Map<String, HasMetadata> out = new LinkedHashMap<>();
    for (RenderedOperand op : rendered) {
      for (HasMetadata want : op.objects()) {
        HasMetadata have;
        if (want instanceof GenericKubernetesResource g) {
          have =
              client
                  .genericKubernetesResources(g.getApiVersion(), g.getKind())
                  .inNamespace(g.getMetadata().getNamespace())
                  .withName(g.getMetadata().getName())
                  .get();
        } else {
          have = client.resource(want).get();
        }
        if (have != null) {
          out.put(ObjectDiff.key(have), have);
        }
      }
    }
    String selector = Labels.MANAGED_BY + "=" + Labels.MANAGED_BY_VALUE;
    List<HasMetadata> managed = new ArrayList<>();
    managed.addAll(
        client.apps().daemonSets().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(
        client.configMaps().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(client.services().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(
        client.serviceAccounts().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(
        client.rbac().roles().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(
        client.rbac().roleBindings().inNamespace(namespace).withLabel(selector).list().getItems());
    managed.addAll(client.rbac().clusterRoles().withLabel(selector).list().getItems());
    managed.addAll(client.rbac().clusterRoleBindings().withLabel(selector).list().getItems());
    managed.addAll(
        client
            .resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class)
            .withLabel(selector)
            .list()
            .getItems());
    if (smCrd) {
      try {
        managed.addAll(
            client
                .genericKubernetesResources("monitoring.coreos.com/v1", "ServiceMonitor")
                .inNamespace(namespace)
                .withLabel(selector)
                .list()
                .getItems());
      } catch (KubernetesClientException e) {
        // The CRD vanished between the two calls: no ServiceMonitors to compare.
      }
    }
    for (HasMetadata m : managed) {
      // fabric8 lists leave kind/apiVersion unset on items of typed lists.
      if (m.getKind() == null) {
        continue;
      }
      out.putIfAbsent(ObjectDiff.key(m), m);
    }
    return new ArrayList<>(out.values());
  }
}
