package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuoperator.api.common.ComponentSpec;

/**
 * The DRA driver for GPUs ({@code spec.draDriver}, not in NVIDIA's ClusterPolicy, whose newest
 * operator deploys its DRA driver from the separate GPUCluster resource): this project's {@code
 * dra-plugin} publishing GPUs and MIG devices under NVIDIA's driver name {@code gpu.nvidia.com},
 * its RBAC and NVIDIA's DeviceClasses {@code gpu.nvidia.com} and {@code mig.nvidia.com}. Off by
 * default. On a node it replaces the device plugin: a node the policy would give both is a status
 * condition, and nothing changes there.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DraDriverSpec extends ComponentSpec {}
