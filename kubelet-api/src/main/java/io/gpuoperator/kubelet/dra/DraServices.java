package io.gpuoperator.kubelet.dra;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.UnknownFieldSet;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * One DRA plugin implementation served under both kubelet API versions. The v1beta1 API imports
 * v1's requests and unprepare responses; its own prepare response differs only in lacking {@code
 * Device.share_id} (same fields, same numbers), so it converts from v1 through its wire bytes:
 * nothing is copied field by field and nothing can drift.
 */
public final class DraServices {
  private DraServices() {}

  /** The v1beta1 DRAPlugin service, answering through the v1 implementation. */
  public static BindableService v1beta1(DRAPluginGrpc.AsyncService v1) {
    return new io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginImplBase() {
      @Override
      public void nodePrepareResources(
          NodePrepareResourcesRequest request,
          StreamObserver<io.gpuoperator.kubelet.dra.v1beta1.NodePrepareResourcesResponse> out) {
        v1.nodePrepareResources(
            request,
            converting(
                out, io.gpuoperator.kubelet.dra.v1beta1.NodePrepareResourcesResponse.parser()));
      }

      @Override
      public void nodeUnprepareResources(
          NodeUnprepareResourcesRequest request,
          StreamObserver<NodeUnprepareResourcesResponse> out) {
        v1.nodeUnprepareResources(request, out);
      }
    };
  }

  /**
   * A message of one API version as the same message of the other (the prepare responses). Fields
   * the target does not know (v1's {@code share_id} read as v1beta1) are dropped, as the Go kubelet
   * would ignore them.
   */
  public static <T extends Message> T convert(Message from, Parser<T> to) {
    try {
      @SuppressWarnings("unchecked")
      T converted = (T) withoutUnknownFields(to.parseFrom(from.toByteString()));
      return converted;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(
          "cannot convert " + from.getDescriptorForType().getFullName() + ": " + e.getMessage(), e);
    }
  }

  /** The message without unknown fields at any depth (share_id sits inside a claim's devices). */
  private static Message withoutUnknownFields(Message message) {
    Message.Builder b = message.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance());
    for (FieldDescriptor f : message.getDescriptorForType().getFields()) {
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.isRepeated()) {
        List<Object> stripped = new ArrayList<>();
        for (Object o : (List<?>) message.getField(f)) {
          stripped.add(withoutUnknownFields((Message) o));
        }
        b.setField(f, stripped);
      } else if (message.hasField(f)) {
        b.setField(f, withoutUnknownFields((Message) message.getField(f)));
      }
    }
    return b.build();
  }

  private static <F extends Message, T extends Message> StreamObserver<F> converting(
      StreamObserver<T> out, Parser<T> to) {
    return new StreamObserver<>() {
      @Override
      public void onNext(F value) {
        try {
          out.onNext(convert(value, to));
        } catch (IllegalArgumentException e) {
          out.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
        }
      }

      @Override
      public void onError(Throwable t) {
        out.onError(t);
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }
}
