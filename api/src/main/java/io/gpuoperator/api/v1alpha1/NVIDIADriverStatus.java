package io.gpuoperator.api.v1alpha1;

import io.gpuoperator.api.common.PolicyStatus;

/** Observed state of an NVIDIADriver. */
public class NVIDIADriverStatus extends PolicyStatus {}
