/** gRPC transport over Unix domain sockets shared by the device plugin and the kubelet side. */
package io.gpuoperator.kubelet.grpc;
