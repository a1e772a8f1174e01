package io.gpuoperator.api.v1alpha1;

import io.gpuoperator.api.common.PolicyStatus;

/**
 * Observed state of the GPUCluster: {@code state} ready, notReady or disabled, the Ready and Error
 * conditions, an {@code IgnoredFields} condition while the spec asks for what this operator does
 * not deploy, and the DRA driver's readiness.
 */
public class GPUClusterStatus extends PolicyStatus {}
