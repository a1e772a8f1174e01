package io.gpuoperator.api.resource.v1beta1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A set of nodes prepared to run one multi-node NVLink workload (IMEX channels), with the group,
 * version and fields of NVIDIA's DRA driver so that manifests written for it apply unchanged.
 */
@Group(ComputeDomain.GROUP)
@Version(ComputeDomain.VERSION)
@Kind("ComputeDomain")
@Plural("computedomains")
@Singular("computedomain")
@AdditionalPrinterColumn(
    name = "Status",
    jsonPath = ".status.status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ComputeDomain extends CustomResource<ComputeDomainSpec, ComputeDomainStatus>
    implements Namespaced {
  public static final String GROUP = "resource.nvidia.com";
  public static final String VERSION = "v1beta1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String CRD_NAME = "computedomains." + GROUP;
}
