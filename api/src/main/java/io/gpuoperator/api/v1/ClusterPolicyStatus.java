package io.gpuoperator.api.v1;

import io.gpuoperator.api.common.PolicyStatus;

/** Observed state of a ClusterPolicy. */
public class ClusterPolicyStatus extends PolicyStatus {}
