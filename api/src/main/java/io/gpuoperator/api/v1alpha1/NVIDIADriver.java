package io.gpuoperator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** A driver for a pool of nodes (nvidia.com/v1alpha1), used with driver.useNvidiaDriverCRD. */
@Group("nvidia.com")
@Version("v1alpha1")
@Kind("NVIDIADriver")
@Plural("nvidiadrivers")
@Singular("nvidiadriver")
@ShortNames({"nvd", "nvdriver", "nvdrivers"})
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class NVIDIADriver extends CustomResource<NVIDIADriverSpec, NVIDIADriverStatus> {
  public static final String CRD_NAME = "nvidiadrivers.nvidia.com";
}
