package io.gpuoperator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The DRA stack as NVIDIA's newest operator manages it (nvidia.com/v1alpha1, cluster-scoped, one
 * resource named {@value #NAME}): cannot coexist with a ClusterPolicy.
 */
@Group("nvidia.com")
@Version("v1alpha1")
@Kind("GPUCluster")
@Plural("gpuclusters")
@Singular("gpucluster")
@ShortNames("gc")
@ValidationRule(
    value = "self.metadata.name == '" + GPUCluster.NAME + "'",
    message = "GPUCluster is a singleton: its name must be " + GPUCluster.NAME)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class GPUCluster extends CustomResource<GPUClusterSpec, GPUClusterStatus> {
  public static final String CRD_NAME = "gpuclusters.nvidia.com";

  /** The one name the API server accepts (CEL rule on the resource). */
  public static final String NAME = "gpu-cluster";
}
