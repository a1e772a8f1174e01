package io.gpuoperator.api.v1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** The one cluster-scoped resource that drives the whole GPU stack (nvidia.com/v1). */
@Group(ClusterPolicy.GROUP)
@Version(ClusterPolicy.VERSION)
@Kind("ClusterPolicy")
@Plural("clusterpolicies")
@Singular("clusterpolicy")
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ClusterPolicy extends CustomResource<ClusterPolicySpec, ClusterPolicyStatus> {
  public static final String GROUP = "nvidia.com";
  public static final String VERSION = "v1";
  public static final String CRD_NAME = "clusterpolicies.nvidia.com";
}
