package dev.outrider.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * When an agent dies or drifts: health checks, the recovery ladder of the
 * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
 * saga handoff and cascade detection of the Agent Governance Toolkit, the
 * agent control channel, and one durable
 * event stream for every listener.
 * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
 * terminated=false) is response data; a gRPC error means the sidecar could
 * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
 * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
 * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
 * credential, or an agent credential acting as another agent_id).
 * Agent ids, group names and session ids are 1-128 characters.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class RecoveryServiceGrpc {

  private RecoveryServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "outrider.v1.RecoveryService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AttachRequest,
      dev.outrider.v1.AttachResponse> getAttachMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Attach",
      requestType = dev.outrider.v1.AttachRequest.class,
      responseType = dev.outrider.v1.AttachResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AttachRequest,
      dev.outrider.v1.AttachResponse> getAttachMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AttachRequest, dev.outrider.v1.AttachResponse> getAttachMethod;
    if ((getAttachMethod = RecoveryServiceGrpc.getAttachMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getAttachMethod = RecoveryServiceGrpc.getAttachMethod) == null) {
          RecoveryServiceGrpc.getAttachMethod = getAttachMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AttachRequest, dev.outrider.v1.AttachResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Attach"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AttachRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AttachResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("Attach"))
              .build();
        }
      }
    }
    return getAttachMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.HeartbeatRequest,
      dev.outrider.v1.HeartbeatResponse> getHeartbeatMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Heartbeat",
      requestType = dev.outrider.v1.HeartbeatRequest.class,
      responseType = dev.outrider.v1.HeartbeatResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.HeartbeatRequest,
      dev.outrider.v1.HeartbeatResponse> getHeartbeatMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.HeartbeatRequest, dev.outrider.v1.HeartbeatResponse> getHeartbeatMethod;
    if ((getHeartbeatMethod = RecoveryServiceGrpc.getHeartbeatMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getHeartbeatMethod = RecoveryServiceGrpc.getHeartbeatMethod) == null) {
          RecoveryServiceGrpc.getHeartbeatMethod = getHeartbeatMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.HeartbeatRequest, dev.outrider.v1.HeartbeatResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Heartbeat"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.HeartbeatRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.HeartbeatResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("Heartbeat"))
              .build();
        }
      }
    }
    return getHeartbeatMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AddHealthCheckRequest,
      dev.outrider.v1.AddHealthCheckResponse> getAddHealthCheckMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddHealthCheck",
      requestType = dev.outrider.v1.AddHealthCheckRequest.class,
      responseType = dev.outrider.v1.AddHealthCheckResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AddHealthCheckRequest,
      dev.outrider.v1.AddHealthCheckResponse> getAddHealthCheckMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AddHealthCheckRequest, dev.outrider.v1.AddHealthCheckResponse> getAddHealthCheckMethod;
    if ((getAddHealthCheckMethod = RecoveryServiceGrpc.getAddHealthCheckMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getAddHealthCheckMethod = RecoveryServiceGrpc.getAddHealthCheckMethod) == null) {
          RecoveryServiceGrpc.getAddHealthCheckMethod = getAddHealthCheckMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AddHealthCheckRequest, dev.outrider.v1.AddHealthCheckResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddHealthCheck"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddHealthCheckRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddHealthCheckResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("AddHealthCheck"))
              .build();
        }
      }
    }
    return getAddHealthCheckMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RemoveHealthCheckRequest,
      dev.outrider.v1.RemoveHealthCheckResponse> getRemoveHealthCheckMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemoveHealthCheck",
      requestType = dev.outrider.v1.RemoveHealthCheckRequest.class,
      responseType = dev.outrider.v1.RemoveHealthCheckResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RemoveHealthCheckRequest,
      dev.outrider.v1.RemoveHealthCheckResponse> getRemoveHealthCheckMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RemoveHealthCheckRequest, dev.outrider.v1.RemoveHealthCheckResponse> getRemoveHealthCheckMethod;
    if ((getRemoveHealthCheckMethod = RecoveryServiceGrpc.getRemoveHealthCheckMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getRemoveHealthCheckMethod = RecoveryServiceGrpc.getRemoveHealthCheckMethod) == null) {
          RecoveryServiceGrpc.getRemoveHealthCheckMethod = getRemoveHealthCheckMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RemoveHealthCheckRequest, dev.outrider.v1.RemoveHealthCheckResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemoveHealthCheck"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveHealthCheckRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveHealthCheckResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("RemoveHealthCheck"))
              .build();
        }
      }
    }
    return getRemoveHealthCheckMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.StartMonitoringRequest,
      dev.outrider.v1.StartMonitoringResponse> getStartMonitoringMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StartMonitoring",
      requestType = dev.outrider.v1.StartMonitoringRequest.class,
      responseType = dev.outrider.v1.StartMonitoringResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.StartMonitoringRequest,
      dev.outrider.v1.StartMonitoringResponse> getStartMonitoringMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.StartMonitoringRequest, dev.outrider.v1.StartMonitoringResponse> getStartMonitoringMethod;
    if ((getStartMonitoringMethod = RecoveryServiceGrpc.getStartMonitoringMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getStartMonitoringMethod = RecoveryServiceGrpc.getStartMonitoringMethod) == null) {
          RecoveryServiceGrpc.getStartMonitoringMethod = getStartMonitoringMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.StartMonitoringRequest, dev.outrider.v1.StartMonitoringResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StartMonitoring"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.StartMonitoringRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.StartMonitoringResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("StartMonitoring"))
              .build();
        }
      }
    }
    return getStartMonitoringMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.StopMonitoringRequest,
      dev.outrider.v1.StopMonitoringResponse> getStopMonitoringMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StopMonitoring",
      requestType = dev.outrider.v1.StopMonitoringRequest.class,
      responseType = dev.outrider.v1.StopMonitoringResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.StopMonitoringRequest,
      dev.outrider.v1.StopMonitoringResponse> getStopMonitoringMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.StopMonitoringRequest, dev.outrider.v1.StopMonitoringResponse> getStopMonitoringMethod;
    if ((getStopMonitoringMethod = RecoveryServiceGrpc.getStopMonitoringMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getStopMonitoringMethod = RecoveryServiceGrpc.getStopMonitoringMethod) == null) {
          RecoveryServiceGrpc.getStopMonitoringMethod = getStopMonitoringMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.StopMonitoringRequest, dev.outrider.v1.StopMonitoringResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StopMonitoring"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.StopMonitoringRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.StopMonitoringResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("StopMonitoring"))
              .build();
        }
      }
    }
    return getStopMonitoringMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetMonitoringStateRequest,
      dev.outrider.v1.GetMonitoringStateResponse> getGetMonitoringStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetMonitoringState",
      requestType = dev.outrider.v1.GetMonitoringStateRequest.class,
      responseType = dev.outrider.v1.GetMonitoringStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetMonitoringStateRequest,
      dev.outrider.v1.GetMonitoringStateResponse> getGetMonitoringStateMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetMonitoringStateRequest, dev.outrider.v1.GetMonitoringStateResponse> getGetMonitoringStateMethod;
    if ((getGetMonitoringStateMethod = RecoveryServiceGrpc.getGetMonitoringStateMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetMonitoringStateMethod = RecoveryServiceGrpc.getGetMonitoringStateMethod) == null) {
          RecoveryServiceGrpc.getGetMonitoringStateMethod = getGetMonitoringStateMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetMonitoringStateRequest, dev.outrider.v1.GetMonitoringStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetMonitoringState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetMonitoringStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetMonitoringStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetMonitoringState"))
              .build();
        }
      }
    }
    return getGetMonitoringStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RunHealthChecksRequest,
      dev.outrider.v1.RunHealthChecksResponse> getRunHealthChecksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RunHealthChecks",
      requestType = dev.outrider.v1.RunHealthChecksRequest.class,
      responseType = dev.outrider.v1.RunHealthChecksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RunHealthChecksRequest,
      dev.outrider.v1.RunHealthChecksResponse> getRunHealthChecksMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RunHealthChecksRequest, dev.outrider.v1.RunHealthChecksResponse> getRunHealthChecksMethod;
    if ((getRunHealthChecksMethod = RecoveryServiceGrpc.getRunHealthChecksMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getRunHealthChecksMethod = RecoveryServiceGrpc.getRunHealthChecksMethod) == null) {
          RecoveryServiceGrpc.getRunHealthChecksMethod = getRunHealthChecksMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RunHealthChecksRequest, dev.outrider.v1.RunHealthChecksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RunHealthChecks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RunHealthChecksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RunHealthChecksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("RunHealthChecks"))
              .build();
        }
      }
    }
    return getRunHealthChecksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRecoveryStatusRequest,
      dev.outrider.v1.GetAgentRecoveryStatusResponse> getGetAgentRecoveryStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAgentRecoveryStatus",
      requestType = dev.outrider.v1.GetAgentRecoveryStatusRequest.class,
      responseType = dev.outrider.v1.GetAgentRecoveryStatusResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRecoveryStatusRequest,
      dev.outrider.v1.GetAgentRecoveryStatusResponse> getGetAgentRecoveryStatusMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRecoveryStatusRequest, dev.outrider.v1.GetAgentRecoveryStatusResponse> getGetAgentRecoveryStatusMethod;
    if ((getGetAgentRecoveryStatusMethod = RecoveryServiceGrpc.getGetAgentRecoveryStatusMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetAgentRecoveryStatusMethod = RecoveryServiceGrpc.getGetAgentRecoveryStatusMethod) == null) {
          RecoveryServiceGrpc.getGetAgentRecoveryStatusMethod = getGetAgentRecoveryStatusMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetAgentRecoveryStatusRequest, dev.outrider.v1.GetAgentRecoveryStatusResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAgentRecoveryStatus"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAgentRecoveryStatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAgentRecoveryStatusResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetAgentRecoveryStatus"))
              .build();
        }
      }
    }
    return getGetAgentRecoveryStatusMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentRecoveryStatusesRequest,
      dev.outrider.v1.ListAgentRecoveryStatusesResponse> getListAgentRecoveryStatusesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgentRecoveryStatuses",
      requestType = dev.outrider.v1.ListAgentRecoveryStatusesRequest.class,
      responseType = dev.outrider.v1.ListAgentRecoveryStatusesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentRecoveryStatusesRequest,
      dev.outrider.v1.ListAgentRecoveryStatusesResponse> getListAgentRecoveryStatusesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentRecoveryStatusesRequest, dev.outrider.v1.ListAgentRecoveryStatusesResponse> getListAgentRecoveryStatusesMethod;
    if ((getListAgentRecoveryStatusesMethod = RecoveryServiceGrpc.getListAgentRecoveryStatusesMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getListAgentRecoveryStatusesMethod = RecoveryServiceGrpc.getListAgentRecoveryStatusesMethod) == null) {
          RecoveryServiceGrpc.getListAgentRecoveryStatusesMethod = getListAgentRecoveryStatusesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListAgentRecoveryStatusesRequest, dev.outrider.v1.ListAgentRecoveryStatusesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgentRecoveryStatuses"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAgentRecoveryStatusesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAgentRecoveryStatusesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ListAgentRecoveryStatuses"))
              .build();
        }
      }
    }
    return getListAgentRecoveryStatusesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.TriggerRecoveryRequest,
      dev.outrider.v1.TriggerRecoveryResponse> getTriggerRecoveryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "TriggerRecovery",
      requestType = dev.outrider.v1.TriggerRecoveryRequest.class,
      responseType = dev.outrider.v1.TriggerRecoveryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.TriggerRecoveryRequest,
      dev.outrider.v1.TriggerRecoveryResponse> getTriggerRecoveryMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.TriggerRecoveryRequest, dev.outrider.v1.TriggerRecoveryResponse> getTriggerRecoveryMethod;
    if ((getTriggerRecoveryMethod = RecoveryServiceGrpc.getTriggerRecoveryMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getTriggerRecoveryMethod = RecoveryServiceGrpc.getTriggerRecoveryMethod) == null) {
          RecoveryServiceGrpc.getTriggerRecoveryMethod = getTriggerRecoveryMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.TriggerRecoveryRequest, dev.outrider.v1.TriggerRecoveryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "TriggerRecovery"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.TriggerRecoveryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.TriggerRecoveryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("TriggerRecovery"))
              .build();
        }
      }
    }
    return getTriggerRecoveryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.SetRecoveryPolicyRequest,
      dev.outrider.v1.SetRecoveryPolicyResponse> getSetRecoveryPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetRecoveryPolicy",
      requestType = dev.outrider.v1.SetRecoveryPolicyRequest.class,
      responseType = dev.outrider.v1.SetRecoveryPolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.SetRecoveryPolicyRequest,
      dev.outrider.v1.SetRecoveryPolicyResponse> getSetRecoveryPolicyMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.SetRecoveryPolicyRequest, dev.outrider.v1.SetRecoveryPolicyResponse> getSetRecoveryPolicyMethod;
    if ((getSetRecoveryPolicyMethod = RecoveryServiceGrpc.getSetRecoveryPolicyMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getSetRecoveryPolicyMethod = RecoveryServiceGrpc.getSetRecoveryPolicyMethod) == null) {
          RecoveryServiceGrpc.getSetRecoveryPolicyMethod = getSetRecoveryPolicyMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.SetRecoveryPolicyRequest, dev.outrider.v1.SetRecoveryPolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetRecoveryPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetRecoveryPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetRecoveryPolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("SetRecoveryPolicy"))
              .build();
        }
      }
    }
    return getSetRecoveryPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryPolicyRequest,
      dev.outrider.v1.GetRecoveryPolicyResponse> getGetRecoveryPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetRecoveryPolicy",
      requestType = dev.outrider.v1.GetRecoveryPolicyRequest.class,
      responseType = dev.outrider.v1.GetRecoveryPolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryPolicyRequest,
      dev.outrider.v1.GetRecoveryPolicyResponse> getGetRecoveryPolicyMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryPolicyRequest, dev.outrider.v1.GetRecoveryPolicyResponse> getGetRecoveryPolicyMethod;
    if ((getGetRecoveryPolicyMethod = RecoveryServiceGrpc.getGetRecoveryPolicyMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetRecoveryPolicyMethod = RecoveryServiceGrpc.getGetRecoveryPolicyMethod) == null) {
          RecoveryServiceGrpc.getGetRecoveryPolicyMethod = getGetRecoveryPolicyMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetRecoveryPolicyRequest, dev.outrider.v1.GetRecoveryPolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetRecoveryPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRecoveryPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRecoveryPolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetRecoveryPolicy"))
              .build();
        }
      }
    }
    return getGetRecoveryPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryPoliciesRequest,
      dev.outrider.v1.ListRecoveryPoliciesResponse> getListRecoveryPoliciesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListRecoveryPolicies",
      requestType = dev.outrider.v1.ListRecoveryPoliciesRequest.class,
      responseType = dev.outrider.v1.ListRecoveryPoliciesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryPoliciesRequest,
      dev.outrider.v1.ListRecoveryPoliciesResponse> getListRecoveryPoliciesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryPoliciesRequest, dev.outrider.v1.ListRecoveryPoliciesResponse> getListRecoveryPoliciesMethod;
    if ((getListRecoveryPoliciesMethod = RecoveryServiceGrpc.getListRecoveryPoliciesMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getListRecoveryPoliciesMethod = RecoveryServiceGrpc.getListRecoveryPoliciesMethod) == null) {
          RecoveryServiceGrpc.getListRecoveryPoliciesMethod = getListRecoveryPoliciesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListRecoveryPoliciesRequest, dev.outrider.v1.ListRecoveryPoliciesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListRecoveryPolicies"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListRecoveryPoliciesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListRecoveryPoliciesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ListRecoveryPolicies"))
              .build();
        }
      }
    }
    return getListRecoveryPoliciesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ResetRetryCounterRequest,
      dev.outrider.v1.ResetRetryCounterResponse> getResetRetryCounterMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResetRetryCounter",
      requestType = dev.outrider.v1.ResetRetryCounterRequest.class,
      responseType = dev.outrider.v1.ResetRetryCounterResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ResetRetryCounterRequest,
      dev.outrider.v1.ResetRetryCounterResponse> getResetRetryCounterMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ResetRetryCounterRequest, dev.outrider.v1.ResetRetryCounterResponse> getResetRetryCounterMethod;
    if ((getResetRetryCounterMethod = RecoveryServiceGrpc.getResetRetryCounterMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getResetRetryCounterMethod = RecoveryServiceGrpc.getResetRetryCounterMethod) == null) {
          RecoveryServiceGrpc.getResetRetryCounterMethod = getResetRetryCounterMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ResetRetryCounterRequest, dev.outrider.v1.ResetRetryCounterResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResetRetryCounter"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ResetRetryCounterRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ResetRetryCounterResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ResetRetryCounter"))
              .build();
        }
      }
    }
    return getResetRetryCounterMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryHistoryRequest,
      dev.outrider.v1.GetRecoveryHistoryResponse> getGetRecoveryHistoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetRecoveryHistory",
      requestType = dev.outrider.v1.GetRecoveryHistoryRequest.class,
      responseType = dev.outrider.v1.GetRecoveryHistoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryHistoryRequest,
      dev.outrider.v1.GetRecoveryHistoryResponse> getGetRecoveryHistoryMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetRecoveryHistoryRequest, dev.outrider.v1.GetRecoveryHistoryResponse> getGetRecoveryHistoryMethod;
    if ((getGetRecoveryHistoryMethod = RecoveryServiceGrpc.getGetRecoveryHistoryMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetRecoveryHistoryMethod = RecoveryServiceGrpc.getGetRecoveryHistoryMethod) == null) {
          RecoveryServiceGrpc.getGetRecoveryHistoryMethod = getGetRecoveryHistoryMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetRecoveryHistoryRequest, dev.outrider.v1.GetRecoveryHistoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetRecoveryHistory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRecoveryHistoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRecoveryHistoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetRecoveryHistory"))
              .build();
        }
      }
    }
    return getGetRecoveryHistoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetRetryCountRequest,
      dev.outrider.v1.GetRetryCountResponse> getGetRetryCountMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetRetryCount",
      requestType = dev.outrider.v1.GetRetryCountRequest.class,
      responseType = dev.outrider.v1.GetRetryCountResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetRetryCountRequest,
      dev.outrider.v1.GetRetryCountResponse> getGetRetryCountMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetRetryCountRequest, dev.outrider.v1.GetRetryCountResponse> getGetRetryCountMethod;
    if ((getGetRetryCountMethod = RecoveryServiceGrpc.getGetRetryCountMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetRetryCountMethod = RecoveryServiceGrpc.getGetRetryCountMethod) == null) {
          RecoveryServiceGrpc.getGetRetryCountMethod = getGetRetryCountMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetRetryCountRequest, dev.outrider.v1.GetRetryCountResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetRetryCount"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRetryCountRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetRetryCountResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetRetryCount"))
              .build();
        }
      }
    }
    return getGetRetryCountMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.KillRequest,
      dev.outrider.v1.KillResponse> getKillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Kill",
      requestType = dev.outrider.v1.KillRequest.class,
      responseType = dev.outrider.v1.KillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.KillRequest,
      dev.outrider.v1.KillResponse> getKillMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.KillRequest, dev.outrider.v1.KillResponse> getKillMethod;
    if ((getKillMethod = RecoveryServiceGrpc.getKillMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getKillMethod = RecoveryServiceGrpc.getKillMethod) == null) {
          RecoveryServiceGrpc.getKillMethod = getKillMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.KillRequest, dev.outrider.v1.KillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Kill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.KillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.KillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("Kill"))
              .build();
        }
      }
    }
    return getKillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReinstateAgentRequest,
      dev.outrider.v1.ReinstateAgentResponse> getReinstateAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReinstateAgent",
      requestType = dev.outrider.v1.ReinstateAgentRequest.class,
      responseType = dev.outrider.v1.ReinstateAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReinstateAgentRequest,
      dev.outrider.v1.ReinstateAgentResponse> getReinstateAgentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReinstateAgentRequest, dev.outrider.v1.ReinstateAgentResponse> getReinstateAgentMethod;
    if ((getReinstateAgentMethod = RecoveryServiceGrpc.getReinstateAgentMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getReinstateAgentMethod = RecoveryServiceGrpc.getReinstateAgentMethod) == null) {
          RecoveryServiceGrpc.getReinstateAgentMethod = getReinstateAgentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReinstateAgentRequest, dev.outrider.v1.ReinstateAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReinstateAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReinstateAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReinstateAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ReinstateAgent"))
              .build();
        }
      }
    }
    return getReinstateAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetKillRequest,
      dev.outrider.v1.GetKillResponse> getGetKillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetKill",
      requestType = dev.outrider.v1.GetKillRequest.class,
      responseType = dev.outrider.v1.GetKillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetKillRequest,
      dev.outrider.v1.GetKillResponse> getGetKillMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetKillRequest, dev.outrider.v1.GetKillResponse> getGetKillMethod;
    if ((getGetKillMethod = RecoveryServiceGrpc.getGetKillMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetKillMethod = RecoveryServiceGrpc.getGetKillMethod) == null) {
          RecoveryServiceGrpc.getGetKillMethod = getGetKillMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetKillRequest, dev.outrider.v1.GetKillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetKill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetKillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetKillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetKill"))
              .build();
        }
      }
    }
    return getGetKillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListKillsRequest,
      dev.outrider.v1.ListKillsResponse> getListKillsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListKills",
      requestType = dev.outrider.v1.ListKillsRequest.class,
      responseType = dev.outrider.v1.ListKillsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListKillsRequest,
      dev.outrider.v1.ListKillsResponse> getListKillsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListKillsRequest, dev.outrider.v1.ListKillsResponse> getListKillsMethod;
    if ((getListKillsMethod = RecoveryServiceGrpc.getListKillsMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getListKillsMethod = RecoveryServiceGrpc.getListKillsMethod) == null) {
          RecoveryServiceGrpc.getListKillsMethod = getListKillsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListKillsRequest, dev.outrider.v1.ListKillsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListKills"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListKillsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListKillsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ListKills"))
              .build();
        }
      }
    }
    return getListKillsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RegisterSubstituteRequest,
      dev.outrider.v1.RegisterSubstituteResponse> getRegisterSubstituteMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterSubstitute",
      requestType = dev.outrider.v1.RegisterSubstituteRequest.class,
      responseType = dev.outrider.v1.RegisterSubstituteResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RegisterSubstituteRequest,
      dev.outrider.v1.RegisterSubstituteResponse> getRegisterSubstituteMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RegisterSubstituteRequest, dev.outrider.v1.RegisterSubstituteResponse> getRegisterSubstituteMethod;
    if ((getRegisterSubstituteMethod = RecoveryServiceGrpc.getRegisterSubstituteMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getRegisterSubstituteMethod = RecoveryServiceGrpc.getRegisterSubstituteMethod) == null) {
          RecoveryServiceGrpc.getRegisterSubstituteMethod = getRegisterSubstituteMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RegisterSubstituteRequest, dev.outrider.v1.RegisterSubstituteResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterSubstitute"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RegisterSubstituteRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RegisterSubstituteResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("RegisterSubstitute"))
              .build();
        }
      }
    }
    return getRegisterSubstituteMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterSubstituteRequest,
      dev.outrider.v1.DeregisterSubstituteResponse> getDeregisterSubstituteMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeregisterSubstitute",
      requestType = dev.outrider.v1.DeregisterSubstituteRequest.class,
      responseType = dev.outrider.v1.DeregisterSubstituteResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterSubstituteRequest,
      dev.outrider.v1.DeregisterSubstituteResponse> getDeregisterSubstituteMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterSubstituteRequest, dev.outrider.v1.DeregisterSubstituteResponse> getDeregisterSubstituteMethod;
    if ((getDeregisterSubstituteMethod = RecoveryServiceGrpc.getDeregisterSubstituteMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getDeregisterSubstituteMethod = RecoveryServiceGrpc.getDeregisterSubstituteMethod) == null) {
          RecoveryServiceGrpc.getDeregisterSubstituteMethod = getDeregisterSubstituteMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.DeregisterSubstituteRequest, dev.outrider.v1.DeregisterSubstituteResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeregisterSubstitute"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DeregisterSubstituteRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DeregisterSubstituteResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("DeregisterSubstitute"))
              .build();
        }
      }
    }
    return getDeregisterSubstituteMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListSubstitutesRequest,
      dev.outrider.v1.ListSubstitutesResponse> getListSubstitutesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSubstitutes",
      requestType = dev.outrider.v1.ListSubstitutesRequest.class,
      responseType = dev.outrider.v1.ListSubstitutesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListSubstitutesRequest,
      dev.outrider.v1.ListSubstitutesResponse> getListSubstitutesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListSubstitutesRequest, dev.outrider.v1.ListSubstitutesResponse> getListSubstitutesMethod;
    if ((getListSubstitutesMethod = RecoveryServiceGrpc.getListSubstitutesMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getListSubstitutesMethod = RecoveryServiceGrpc.getListSubstitutesMethod) == null) {
          RecoveryServiceGrpc.getListSubstitutesMethod = getListSubstitutesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListSubstitutesRequest, dev.outrider.v1.ListSubstitutesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSubstitutes"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListSubstitutesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListSubstitutesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ListSubstitutes"))
              .build();
        }
      }
    }
    return getListSubstitutesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReportFailureRequest,
      dev.outrider.v1.ReportFailureResponse> getReportFailureMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReportFailure",
      requestType = dev.outrider.v1.ReportFailureRequest.class,
      responseType = dev.outrider.v1.ReportFailureResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReportFailureRequest,
      dev.outrider.v1.ReportFailureResponse> getReportFailureMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReportFailureRequest, dev.outrider.v1.ReportFailureResponse> getReportFailureMethod;
    if ((getReportFailureMethod = RecoveryServiceGrpc.getReportFailureMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getReportFailureMethod = RecoveryServiceGrpc.getReportFailureMethod) == null) {
          RecoveryServiceGrpc.getReportFailureMethod = getReportFailureMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReportFailureRequest, dev.outrider.v1.ReportFailureResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReportFailure"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportFailureRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportFailureResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ReportFailure"))
              .build();
        }
      }
    }
    return getReportFailureMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetCascadePolicyRequest,
      dev.outrider.v1.GetCascadePolicyResponse> getGetCascadePolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetCascadePolicy",
      requestType = dev.outrider.v1.GetCascadePolicyRequest.class,
      responseType = dev.outrider.v1.GetCascadePolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetCascadePolicyRequest,
      dev.outrider.v1.GetCascadePolicyResponse> getGetCascadePolicyMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetCascadePolicyRequest, dev.outrider.v1.GetCascadePolicyResponse> getGetCascadePolicyMethod;
    if ((getGetCascadePolicyMethod = RecoveryServiceGrpc.getGetCascadePolicyMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getGetCascadePolicyMethod = RecoveryServiceGrpc.getGetCascadePolicyMethod) == null) {
          RecoveryServiceGrpc.getGetCascadePolicyMethod = getGetCascadePolicyMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetCascadePolicyRequest, dev.outrider.v1.GetCascadePolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetCascadePolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetCascadePolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetCascadePolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("GetCascadePolicy"))
              .build();
        }
      }
    }
    return getGetCascadePolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.SetCascadePolicyRequest,
      dev.outrider.v1.SetCascadePolicyResponse> getSetCascadePolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetCascadePolicy",
      requestType = dev.outrider.v1.SetCascadePolicyRequest.class,
      responseType = dev.outrider.v1.SetCascadePolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.SetCascadePolicyRequest,
      dev.outrider.v1.SetCascadePolicyResponse> getSetCascadePolicyMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.SetCascadePolicyRequest, dev.outrider.v1.SetCascadePolicyResponse> getSetCascadePolicyMethod;
    if ((getSetCascadePolicyMethod = RecoveryServiceGrpc.getSetCascadePolicyMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getSetCascadePolicyMethod = RecoveryServiceGrpc.getSetCascadePolicyMethod) == null) {
          RecoveryServiceGrpc.getSetCascadePolicyMethod = getSetCascadePolicyMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.SetCascadePolicyRequest, dev.outrider.v1.SetCascadePolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetCascadePolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetCascadePolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetCascadePolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("SetCascadePolicy"))
              .build();
        }
      }
    }
    return getSetCascadePolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.WatchRecoveryEventsRequest,
      dev.outrider.v1.WatchRecoveryEventsResponse> getWatchRecoveryEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchRecoveryEvents",
      requestType = dev.outrider.v1.WatchRecoveryEventsRequest.class,
      responseType = dev.outrider.v1.WatchRecoveryEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.WatchRecoveryEventsRequest,
      dev.outrider.v1.WatchRecoveryEventsResponse> getWatchRecoveryEventsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.WatchRecoveryEventsRequest, dev.outrider.v1.WatchRecoveryEventsResponse> getWatchRecoveryEventsMethod;
    if ((getWatchRecoveryEventsMethod = RecoveryServiceGrpc.getWatchRecoveryEventsMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getWatchRecoveryEventsMethod = RecoveryServiceGrpc.getWatchRecoveryEventsMethod) == null) {
          RecoveryServiceGrpc.getWatchRecoveryEventsMethod = getWatchRecoveryEventsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.WatchRecoveryEventsRequest, dev.outrider.v1.WatchRecoveryEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchRecoveryEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WatchRecoveryEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WatchRecoveryEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("WatchRecoveryEvents"))
              .build();
        }
      }
    }
    return getWatchRecoveryEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryEventsRequest,
      dev.outrider.v1.ListRecoveryEventsResponse> getListRecoveryEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListRecoveryEvents",
      requestType = dev.outrider.v1.ListRecoveryEventsRequest.class,
      responseType = dev.outrider.v1.ListRecoveryEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryEventsRequest,
      dev.outrider.v1.ListRecoveryEventsResponse> getListRecoveryEventsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListRecoveryEventsRequest, dev.outrider.v1.ListRecoveryEventsResponse> getListRecoveryEventsMethod;
    if ((getListRecoveryEventsMethod = RecoveryServiceGrpc.getListRecoveryEventsMethod) == null) {
      synchronized (RecoveryServiceGrpc.class) {
        if ((getListRecoveryEventsMethod = RecoveryServiceGrpc.getListRecoveryEventsMethod) == null) {
          RecoveryServiceGrpc.getListRecoveryEventsMethod = getListRecoveryEventsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListRecoveryEventsRequest, dev.outrider.v1.ListRecoveryEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListRecoveryEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListRecoveryEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListRecoveryEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RecoveryServiceMethodDescriptorSupplier("ListRecoveryEvents"))
              .build();
        }
      }
    }
    return getListRecoveryEventsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RecoveryServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceStub>() {
        @java.lang.Override
        public RecoveryServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecoveryServiceStub(channel, callOptions);
        }
      };
    return RecoveryServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static RecoveryServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceBlockingV2Stub>() {
        @java.lang.Override
        public RecoveryServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecoveryServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return RecoveryServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RecoveryServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceBlockingStub>() {
        @java.lang.Override
        public RecoveryServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecoveryServiceBlockingStub(channel, callOptions);
        }
      };
    return RecoveryServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RecoveryServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RecoveryServiceFutureStub>() {
        @java.lang.Override
        public RecoveryServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RecoveryServiceFutureStub(channel, callOptions);
        }
      };
    return RecoveryServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * The agent control channel. The agent sends an AttachHello first, then
     * acks (one per command) and optional heartbeats; the sidecar answers with
     * AttachAccepted, then sends commands (PING, RESTART, RESTART_CLEAN, KILL,
     * HANDOFF, SIGWARN, SIGSTOP, SIGRESUME) for as long as the stream is open.
     * An agent holds at most one stream: a new Attach for the same agent
     * replaces the older one, which ends with ABORTED (ErrorInfo reason
     * STREAM_REPLACED); commands not acked on it are re-sent on the new one.
     * After acking a KILL the stream ends with ABORTED (reason AGENT_KILLED).
     * Agent credential: its own agent_id only.
     * Acks for unknown or expired command ids are ignored.
     * INVALID_ARGUMENT: the first message is not a hello, a second hello,
     * empty agent_id. NOT_FOUND: the agent is not registered
     * (SupervisorService.RegisterAgent; a killed agent must register again).
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.outrider.v1.AttachRequest> attach(
        io.grpc.stub.StreamObserver<dev.outrider.v1.AttachResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getAttachMethod(), responseObserver);
    }

    /**
     * <pre>
     * Liveness for agents that cannot hold a stream: refreshes the agent's
     * last-seen time (what heartbeat checks measure). Commands are delivered
     * only over Attach. Agent credential: its own agent_id only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    default void heartbeat(dev.outrider.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getHeartbeatMethod(), responseObserver);
    }

    /**
     * <pre>
     * Health checks.
     * Sets the agent's health check, replacing the one it had (an agent has at
     * most one). Persisted. Operator only.
     * INVALID_ARGUMENT: no kind set, empty grpc target, a url that is not
     * http(s), a non-positive timeout or silence threshold. NOT_FOUND: unknown
     * agent.
     * </pre>
     */
    default void addHealthCheck(dev.outrider.v1.AddHealthCheckRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddHealthCheckResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddHealthCheckMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes the agent's health check. Operator only.
     * NOT_FOUND: the agent has no health check.
     * </pre>
     */
    default void removeHealthCheck(dev.outrider.v1.RemoveHealthCheckRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveHealthCheckResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemoveHealthCheckMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs every health check at a fixed rate until StopMonitoring (a scheduler
     * job; persisted, so a restarted sidecar resumes it). Calling it while
     * running reschedules with the new interval. Operator only.
     * INVALID_ARGUMENT: non-positive interval.
     * </pre>
     */
    default void startMonitoring(dev.outrider.v1.StartMonitoringRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.StartMonitoringResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStartMonitoringMethod(), responseObserver);
    }

    /**
     * <pre>
     * Stops the periodic job; a no-op when not running. Operator only.
     * </pre>
     */
    default void stopMonitoring(dev.outrider.v1.StopMonitoringRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.StopMonitoringResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStopMonitoringMethod(), responseObserver);
    }

    /**
     * <pre>
     * Whether the periodic job runs, and when it ran last and runs next.
     * </pre>
     */
    default void getMonitoringState(dev.outrider.v1.GetMonitoringStateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetMonitoringStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetMonitoringStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs every check once and returns a HealthStatus per agent that has a
     * check and is still a member of its group (others are skipped). Checks
     * run concurrently, each under its own timeout: a slow agent never delays
     * the others. A failed or throwing check emits HEALTH_CHECK_FAILED and
     * starts a recovery attempt, returned in `recoveries`. Operator only.
     * </pre>
     */
    default void runHealthChecks(dev.outrider.v1.RunHealthChecksRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RunHealthChecksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRunHealthChecksMethod(), responseObserver);
    }

    /**
     * <pre>
     * One agent's health, retry count and connection. NOT_FOUND: unknown agent.
     * </pre>
     */
    default void getAgentRecoveryStatus(dev.outrider.v1.GetAgentRecoveryStatusRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentRecoveryStatusResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAgentRecoveryStatusMethod(), responseObserver);
    }

    /**
     * <pre>
     * Every registered agent's status, ordered by agent id. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listAgentRecoveryStatuses(dev.outrider.v1.ListAgentRecoveryStatusesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentRecoveryStatusesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentRecoveryStatusesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Recovery (the SupervisorAgent library's semantics, exactly).
     * Starts a recovery attempt for the agent. Within the cooldown of its
     * previous attempt nothing happens and a failed result with in_cooldown is
     * returned. Otherwise the action is EJECT once the retry count reaches
     * max_retries, ESCALATE once it reaches escalate_after, the policy's
     * default_action before; the retry count goes up by one and the result is
     * recorded in the history and emitted (RECOVERY_ATTEMPT, plus ESCALATION
     * for ESCALATE). Operator only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    default void triggerRecovery(dev.outrider.v1.TriggerRecoveryRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.TriggerRecoveryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getTriggerRecoveryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets a group's recovery policy, replacing the whole of it (unset fields
     * take the defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: negative max_retries or escalate_after, negative
     * cooldown.
     * </pre>
     */
    default void setRecoveryPolicy(dev.outrider.v1.SetRecoveryPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetRecoveryPolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetRecoveryPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * The effective policy of a group: its own, else the defaults (`source`
     * says which). Never NOT_FOUND.
     * </pre>
     */
    default void getRecoveryPolicy(dev.outrider.v1.GetRecoveryPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryPolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetRecoveryPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Every group's own policy (runtime and policy file), ordered by group.
     * Paginated.
     * </pre>
     */
    default void listRecoveryPolicies(dev.outrider.v1.ListRecoveryPoliciesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryPoliciesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListRecoveryPoliciesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets the agent's retry count to 0 (becoming healthy does not). A no-op for
     * an agent without attempts. Operator only. INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    default void resetRetryCounter(dev.outrider.v1.ResetRetryCounterRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ResetRetryCounterResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResetRetryCounterMethod(), responseObserver);
    }

    /**
     * <pre>
     * Recorded recovery attempts, newest first, with filters. Durable.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token,
     * end_time before start_time.
     * </pre>
     */
    default void getRecoveryHistory(dev.outrider.v1.GetRecoveryHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryHistoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetRecoveryHistoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * The agent's retry count; 0 for an agent without attempts (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    default void getRetryCount(dev.outrider.v1.GetRetryCountRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRetryCountResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetRetryCountMethod(), responseObserver);
    }

    /**
     * <pre>
     * Kill switch with saga handoff.
     * Kills an agent. First the kill intent is written durably (kill id, UTC
     * time). Then each in-flight step, in order, is sent as a HANDOFF command
     * to the session's substitutes, first registered first, skipping the
     * killed agent and any killed or unhealthy one: HANDED_OFF when one acks
     * SUCCESS within handoff_timeout, else (no ack in time, a FAILURE or
     * REJECTED ack, not connected) that attempt is FAILED and the next is
     * tried; with none left the step is COMPENSATED. Then the KILL
     * command is sent with callback_timeout: acked → terminated=true; not
     * connected → terminated=false, detail "not connected"; timeout or error →
     * terminated=false with the reason. At the end the agent is unregistered
     * whatever the outcome: removed from the registry (as DeregisterAgent), its
     * group, health check and retry count, every substitute list; its stream is
     * closed, its pending approvals cancelled and its leases revoked. Returns
     * when the kill is complete; a kill interrupted by a client deadline goes
     * on (see GetKill), one interrupted by a restart is completed at start-up.
     * A retry with the same request_id returns the same kill. Operator only.
     * INVALID_ARGUMENT: empty agent_id, reason UNSPECIFIED, a step missing
     * saga_id or step_id, a (saga_id, step_id) given twice, non-positive
     * timeouts. FAILED_PRECONDITION: a kill of the agent is already in progress.
     * Any agent id may be killed, registered or not (an agent that acted
     * without registering is stopped too). The id is TERMINATED in the same
     * transaction as the kill record: from then on every RPC made with its
     * credentials is refused (PERMISSION_DENIED, reason AGENT_TERMINATED) and
     * CheckAction for it answers BLOCK from the `kill-switch` guardrail with the
     * kill id in the reason, until an operator calls ReinstateAgent.
     * </pre>
     */
    default void kill(dev.outrider.v1.KillRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.KillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getKillMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lifts a kill's termination or an EJECT's quarantine: the agent's
     * credentials work again and CheckAction runs the chain for it. A killed
     * agent was unregistered: an operator registers it again (RegisterAgent).
     * Audited. Operator only. INVALID_ARGUMENT: malformed agent_id.
     * FAILED_PRECONDITION (NOT_CONTAINED): the agent is neither terminated nor
     * quarantined.
     * </pre>
     */
    default void reinstateAgent(dev.outrider.v1.ReinstateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReinstateAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReinstateAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * One kill, complete or in progress. NOT_FOUND: unknown kill id.
     * </pre>
     */
    default void getKill(dev.outrider.v1.GetKillRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetKillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetKillMethod(), responseObserver);
    }

    /**
     * <pre>
     * Durable kill history (survives restarts), newest first, with filters.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listKills(dev.outrider.v1.ListKillsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListKillsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListKillsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Appends an agent to a session's substitute list (kill handoffs) or a
     * group's (REPLACE promotion). Persisted. Operator only.
     * INVALID_ARGUMENT: no scope, empty agent_id. NOT_FOUND: unknown agent.
     * ALREADY_EXISTS: the agent is already in that list.
     * </pre>
     */
    default void registerSubstitute(dev.outrider.v1.RegisterSubstituteRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterSubstituteResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterSubstituteMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes an agent from a substitute list. Operator only.
     * NOT_FOUND: the agent is not in that list.
     * </pre>
     */
    default void deregisterSubstitute(dev.outrider.v1.DeregisterSubstituteRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterSubstituteResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeregisterSubstituteMethod(), responseObserver);
    }

    /**
     * <pre>
     * A substitute list in trial order. Paginated.
     * INVALID_ARGUMENT: no scope, negative page_size, bad page_token.
     * </pre>
     */
    default void listSubstitutes(dev.outrider.v1.ListSubstitutesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListSubstitutesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSubstitutesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Cascade detection.
     * Records that a failure of from_agent caused one of to_agent (breakers
     * opening report too). When `threshold` related failures fall inside
     * `window`, a CASCADE event names the agents and the policy action runs.
     * Agent credential: only with to_agent = its own id.
     * INVALID_ARGUMENT: empty from_agent or to_agent.
     * </pre>
     */
    default void reportFailure(dev.outrider.v1.ReportFailureRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportFailureResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReportFailureMethod(), responseObserver);
    }

    /**
     * <pre>
     * The cascade detector's settings.
     * </pre>
     */
    default void getCascadePolicy(dev.outrider.v1.GetCascadePolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetCascadePolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetCascadePolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Replaces the cascade detector's settings (unset fields take the
     * defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: non-positive window, threshold below 1.
     * </pre>
     */
    default void setCascadePolicy(dev.outrider.v1.SetCascadePolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetCascadePolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetCascadePolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Events.
     * Streams recovery events in sequence order: the stored ones after
     * start_cursor, then new ones as they happen, until the client cancels.
     * In a fleet, every sidecar's events (recovery, breaker and budget), on
     * whichever sidecar the stream is opened; a cursor from any sidecar is
     * valid on every other.
     * Without start_cursor only new events are sent. A listener that
     * reconnects with the last sequence it saw misses nothing.
     * OUT_OF_RANGE: start_cursor is above the latest sequence, or events after
     * it have been pruned by retention (resync with ListRecoveryEvents).
     * </pre>
     */
    default void watchRecoveryEvents(dev.outrider.v1.WatchRecoveryEventsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WatchRecoveryEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchRecoveryEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Stored recovery events, newest first, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listRecoveryEvents(dev.outrider.v1.ListRecoveryEventsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListRecoveryEventsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service RecoveryService.
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public static abstract class RecoveryServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return RecoveryServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service RecoveryService.
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public static final class RecoveryServiceStub
      extends io.grpc.stub.AbstractAsyncStub<RecoveryServiceStub> {
    private RecoveryServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecoveryServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecoveryServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * The agent control channel. The agent sends an AttachHello first, then
     * acks (one per command) and optional heartbeats; the sidecar answers with
     * AttachAccepted, then sends commands (PING, RESTART, RESTART_CLEAN, KILL,
     * HANDOFF, SIGWARN, SIGSTOP, SIGRESUME) for as long as the stream is open.
     * An agent holds at most one stream: a new Attach for the same agent
     * replaces the older one, which ends with ABORTED (ErrorInfo reason
     * STREAM_REPLACED); commands not acked on it are re-sent on the new one.
     * After acking a KILL the stream ends with ABORTED (reason AGENT_KILLED).
     * Agent credential: its own agent_id only.
     * Acks for unknown or expired command ids are ignored.
     * INVALID_ARGUMENT: the first message is not a hello, a second hello,
     * empty agent_id. NOT_FOUND: the agent is not registered
     * (SupervisorService.RegisterAgent; a killed agent must register again).
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.outrider.v1.AttachRequest> attach(
        io.grpc.stub.StreamObserver<dev.outrider.v1.AttachResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getAttachMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Liveness for agents that cannot hold a stream: refreshes the agent's
     * last-seen time (what heartbeat checks measure). Commands are delivered
     * only over Attach. Agent credential: its own agent_id only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public void heartbeat(dev.outrider.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Health checks.
     * Sets the agent's health check, replacing the one it had (an agent has at
     * most one). Persisted. Operator only.
     * INVALID_ARGUMENT: no kind set, empty grpc target, a url that is not
     * http(s), a non-positive timeout or silence threshold. NOT_FOUND: unknown
     * agent.
     * </pre>
     */
    public void addHealthCheck(dev.outrider.v1.AddHealthCheckRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddHealthCheckResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddHealthCheckMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes the agent's health check. Operator only.
     * NOT_FOUND: the agent has no health check.
     * </pre>
     */
    public void removeHealthCheck(dev.outrider.v1.RemoveHealthCheckRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveHealthCheckResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemoveHealthCheckMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs every health check at a fixed rate until StopMonitoring (a scheduler
     * job; persisted, so a restarted sidecar resumes it). Calling it while
     * running reschedules with the new interval. Operator only.
     * INVALID_ARGUMENT: non-positive interval.
     * </pre>
     */
    public void startMonitoring(dev.outrider.v1.StartMonitoringRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.StartMonitoringResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStartMonitoringMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Stops the periodic job; a no-op when not running. Operator only.
     * </pre>
     */
    public void stopMonitoring(dev.outrider.v1.StopMonitoringRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.StopMonitoringResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStopMonitoringMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Whether the periodic job runs, and when it ran last and runs next.
     * </pre>
     */
    public void getMonitoringState(dev.outrider.v1.GetMonitoringStateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetMonitoringStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetMonitoringStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs every check once and returns a HealthStatus per agent that has a
     * check and is still a member of its group (others are skipped). Checks
     * run concurrently, each under its own timeout: a slow agent never delays
     * the others. A failed or throwing check emits HEALTH_CHECK_FAILED and
     * starts a recovery attempt, returned in `recoveries`. Operator only.
     * </pre>
     */
    public void runHealthChecks(dev.outrider.v1.RunHealthChecksRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RunHealthChecksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRunHealthChecksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One agent's health, retry count and connection. NOT_FOUND: unknown agent.
     * </pre>
     */
    public void getAgentRecoveryStatus(dev.outrider.v1.GetAgentRecoveryStatusRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentRecoveryStatusResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAgentRecoveryStatusMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Every registered agent's status, ordered by agent id. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listAgentRecoveryStatuses(dev.outrider.v1.ListAgentRecoveryStatusesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentRecoveryStatusesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentRecoveryStatusesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Recovery (the SupervisorAgent library's semantics, exactly).
     * Starts a recovery attempt for the agent. Within the cooldown of its
     * previous attempt nothing happens and a failed result with in_cooldown is
     * returned. Otherwise the action is EJECT once the retry count reaches
     * max_retries, ESCALATE once it reaches escalate_after, the policy's
     * default_action before; the retry count goes up by one and the result is
     * recorded in the history and emitted (RECOVERY_ATTEMPT, plus ESCALATION
     * for ESCALATE). Operator only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public void triggerRecovery(dev.outrider.v1.TriggerRecoveryRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.TriggerRecoveryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getTriggerRecoveryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets a group's recovery policy, replacing the whole of it (unset fields
     * take the defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: negative max_retries or escalate_after, negative
     * cooldown.
     * </pre>
     */
    public void setRecoveryPolicy(dev.outrider.v1.SetRecoveryPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetRecoveryPolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetRecoveryPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The effective policy of a group: its own, else the defaults (`source`
     * says which). Never NOT_FOUND.
     * </pre>
     */
    public void getRecoveryPolicy(dev.outrider.v1.GetRecoveryPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryPolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetRecoveryPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Every group's own policy (runtime and policy file), ordered by group.
     * Paginated.
     * </pre>
     */
    public void listRecoveryPolicies(dev.outrider.v1.ListRecoveryPoliciesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryPoliciesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListRecoveryPoliciesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets the agent's retry count to 0 (becoming healthy does not). A no-op for
     * an agent without attempts. Operator only. INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public void resetRetryCounter(dev.outrider.v1.ResetRetryCounterRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ResetRetryCounterResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResetRetryCounterMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Recorded recovery attempts, newest first, with filters. Durable.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token,
     * end_time before start_time.
     * </pre>
     */
    public void getRecoveryHistory(dev.outrider.v1.GetRecoveryHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryHistoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetRecoveryHistoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The agent's retry count; 0 for an agent without attempts (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public void getRetryCount(dev.outrider.v1.GetRetryCountRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetRetryCountResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetRetryCountMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Kill switch with saga handoff.
     * Kills an agent. First the kill intent is written durably (kill id, UTC
     * time). Then each in-flight step, in order, is sent as a HANDOFF command
     * to the session's substitutes, first registered first, skipping the
     * killed agent and any killed or unhealthy one: HANDED_OFF when one acks
     * SUCCESS within handoff_timeout, else (no ack in time, a FAILURE or
     * REJECTED ack, not connected) that attempt is FAILED and the next is
     * tried; with none left the step is COMPENSATED. Then the KILL
     * command is sent with callback_timeout: acked → terminated=true; not
     * connected → terminated=false, detail "not connected"; timeout or error →
     * terminated=false with the reason. At the end the agent is unregistered
     * whatever the outcome: removed from the registry (as DeregisterAgent), its
     * group, health check and retry count, every substitute list; its stream is
     * closed, its pending approvals cancelled and its leases revoked. Returns
     * when the kill is complete; a kill interrupted by a client deadline goes
     * on (see GetKill), one interrupted by a restart is completed at start-up.
     * A retry with the same request_id returns the same kill. Operator only.
     * INVALID_ARGUMENT: empty agent_id, reason UNSPECIFIED, a step missing
     * saga_id or step_id, a (saga_id, step_id) given twice, non-positive
     * timeouts. FAILED_PRECONDITION: a kill of the agent is already in progress.
     * Any agent id may be killed, registered or not (an agent that acted
     * without registering is stopped too). The id is TERMINATED in the same
     * transaction as the kill record: from then on every RPC made with its
     * credentials is refused (PERMISSION_DENIED, reason AGENT_TERMINATED) and
     * CheckAction for it answers BLOCK from the `kill-switch` guardrail with the
     * kill id in the reason, until an operator calls ReinstateAgent.
     * </pre>
     */
    public void kill(dev.outrider.v1.KillRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.KillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getKillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lifts a kill's termination or an EJECT's quarantine: the agent's
     * credentials work again and CheckAction runs the chain for it. A killed
     * agent was unregistered: an operator registers it again (RegisterAgent).
     * Audited. Operator only. INVALID_ARGUMENT: malformed agent_id.
     * FAILED_PRECONDITION (NOT_CONTAINED): the agent is neither terminated nor
     * quarantined.
     * </pre>
     */
    public void reinstateAgent(dev.outrider.v1.ReinstateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReinstateAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReinstateAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One kill, complete or in progress. NOT_FOUND: unknown kill id.
     * </pre>
     */
    public void getKill(dev.outrider.v1.GetKillRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetKillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetKillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Durable kill history (survives restarts), newest first, with filters.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listKills(dev.outrider.v1.ListKillsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListKillsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListKillsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Appends an agent to a session's substitute list (kill handoffs) or a
     * group's (REPLACE promotion). Persisted. Operator only.
     * INVALID_ARGUMENT: no scope, empty agent_id. NOT_FOUND: unknown agent.
     * ALREADY_EXISTS: the agent is already in that list.
     * </pre>
     */
    public void registerSubstitute(dev.outrider.v1.RegisterSubstituteRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterSubstituteResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterSubstituteMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes an agent from a substitute list. Operator only.
     * NOT_FOUND: the agent is not in that list.
     * </pre>
     */
    public void deregisterSubstitute(dev.outrider.v1.DeregisterSubstituteRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterSubstituteResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeregisterSubstituteMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A substitute list in trial order. Paginated.
     * INVALID_ARGUMENT: no scope, negative page_size, bad page_token.
     * </pre>
     */
    public void listSubstitutes(dev.outrider.v1.ListSubstitutesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListSubstitutesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSubstitutesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Cascade detection.
     * Records that a failure of from_agent caused one of to_agent (breakers
     * opening report too). When `threshold` related failures fall inside
     * `window`, a CASCADE event names the agents and the policy action runs.
     * Agent credential: only with to_agent = its own id.
     * INVALID_ARGUMENT: empty from_agent or to_agent.
     * </pre>
     */
    public void reportFailure(dev.outrider.v1.ReportFailureRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportFailureResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReportFailureMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The cascade detector's settings.
     * </pre>
     */
    public void getCascadePolicy(dev.outrider.v1.GetCascadePolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetCascadePolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetCascadePolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Replaces the cascade detector's settings (unset fields take the
     * defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: non-positive window, threshold below 1.
     * </pre>
     */
    public void setCascadePolicy(dev.outrider.v1.SetCascadePolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetCascadePolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetCascadePolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Events.
     * Streams recovery events in sequence order: the stored ones after
     * start_cursor, then new ones as they happen, until the client cancels.
     * In a fleet, every sidecar's events (recovery, breaker and budget), on
     * whichever sidecar the stream is opened; a cursor from any sidecar is
     * valid on every other.
     * Without start_cursor only new events are sent. A listener that
     * reconnects with the last sequence it saw misses nothing.
     * OUT_OF_RANGE: start_cursor is above the latest sequence, or events after
     * it have been pruned by retention (resync with ListRecoveryEvents).
     * </pre>
     */
    public void watchRecoveryEvents(dev.outrider.v1.WatchRecoveryEventsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WatchRecoveryEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchRecoveryEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Stored recovery events, newest first, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listRecoveryEvents(dev.outrider.v1.ListRecoveryEventsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListRecoveryEventsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service RecoveryService.
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public static final class RecoveryServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<RecoveryServiceBlockingV2Stub> {
    private RecoveryServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecoveryServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecoveryServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * The agent control channel. The agent sends an AttachHello first, then
     * acks (one per command) and optional heartbeats; the sidecar answers with
     * AttachAccepted, then sends commands (PING, RESTART, RESTART_CLEAN, KILL,
     * HANDOFF, SIGWARN, SIGSTOP, SIGRESUME) for as long as the stream is open.
     * An agent holds at most one stream: a new Attach for the same agent
     * replaces the older one, which ends with ABORTED (ErrorInfo reason
     * STREAM_REPLACED); commands not acked on it are re-sent on the new one.
     * After acking a KILL the stream ends with ABORTED (reason AGENT_KILLED).
     * Agent credential: its own agent_id only.
     * Acks for unknown or expired command ids are ignored.
     * INVALID_ARGUMENT: the first message is not a hello, a second hello,
     * empty agent_id. NOT_FOUND: the agent is not registered
     * (SupervisorService.RegisterAgent; a killed agent must register again).
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.outrider.v1.AttachRequest, dev.outrider.v1.AttachResponse>
        attach() {
      return io.grpc.stub.ClientCalls.blockingBidiStreamingCall(
          getChannel(), getAttachMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Liveness for agents that cannot hold a stream: refreshes the agent's
     * last-seen time (what heartbeat checks measure). Commands are delivered
     * only over Attach. Agent credential: its own agent_id only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.HeartbeatResponse heartbeat(dev.outrider.v1.HeartbeatRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Health checks.
     * Sets the agent's health check, replacing the one it had (an agent has at
     * most one). Persisted. Operator only.
     * INVALID_ARGUMENT: no kind set, empty grpc target, a url that is not
     * http(s), a non-positive timeout or silence threshold. NOT_FOUND: unknown
     * agent.
     * </pre>
     */
    public dev.outrider.v1.AddHealthCheckResponse addHealthCheck(dev.outrider.v1.AddHealthCheckRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAddHealthCheckMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes the agent's health check. Operator only.
     * NOT_FOUND: the agent has no health check.
     * </pre>
     */
    public dev.outrider.v1.RemoveHealthCheckResponse removeHealthCheck(dev.outrider.v1.RemoveHealthCheckRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemoveHealthCheckMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs every health check at a fixed rate until StopMonitoring (a scheduler
     * job; persisted, so a restarted sidecar resumes it). Calling it while
     * running reschedules with the new interval. Operator only.
     * INVALID_ARGUMENT: non-positive interval.
     * </pre>
     */
    public dev.outrider.v1.StartMonitoringResponse startMonitoring(dev.outrider.v1.StartMonitoringRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getStartMonitoringMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stops the periodic job; a no-op when not running. Operator only.
     * </pre>
     */
    public dev.outrider.v1.StopMonitoringResponse stopMonitoring(dev.outrider.v1.StopMonitoringRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getStopMonitoringMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Whether the periodic job runs, and when it ran last and runs next.
     * </pre>
     */
    public dev.outrider.v1.GetMonitoringStateResponse getMonitoringState(dev.outrider.v1.GetMonitoringStateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetMonitoringStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs every check once and returns a HealthStatus per agent that has a
     * check and is still a member of its group (others are skipped). Checks
     * run concurrently, each under its own timeout: a slow agent never delays
     * the others. A failed or throwing check emits HEALTH_CHECK_FAILED and
     * starts a recovery attempt, returned in `recoveries`. Operator only.
     * </pre>
     */
    public dev.outrider.v1.RunHealthChecksResponse runHealthChecks(dev.outrider.v1.RunHealthChecksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRunHealthChecksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One agent's health, retry count and connection. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.GetAgentRecoveryStatusResponse getAgentRecoveryStatus(dev.outrider.v1.GetAgentRecoveryStatusRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAgentRecoveryStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every registered agent's status, ordered by agent id. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAgentRecoveryStatusesResponse listAgentRecoveryStatuses(dev.outrider.v1.ListAgentRecoveryStatusesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAgentRecoveryStatusesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recovery (the SupervisorAgent library's semantics, exactly).
     * Starts a recovery attempt for the agent. Within the cooldown of its
     * previous attempt nothing happens and a failed result with in_cooldown is
     * returned. Otherwise the action is EJECT once the retry count reaches
     * max_retries, ESCALATE once it reaches escalate_after, the policy's
     * default_action before; the retry count goes up by one and the result is
     * recorded in the history and emitted (RECOVERY_ATTEMPT, plus ESCALATION
     * for ESCALATE). Operator only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.TriggerRecoveryResponse triggerRecovery(dev.outrider.v1.TriggerRecoveryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getTriggerRecoveryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets a group's recovery policy, replacing the whole of it (unset fields
     * take the defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: negative max_retries or escalate_after, negative
     * cooldown.
     * </pre>
     */
    public dev.outrider.v1.SetRecoveryPolicyResponse setRecoveryPolicy(dev.outrider.v1.SetRecoveryPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetRecoveryPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The effective policy of a group: its own, else the defaults (`source`
     * says which). Never NOT_FOUND.
     * </pre>
     */
    public dev.outrider.v1.GetRecoveryPolicyResponse getRecoveryPolicy(dev.outrider.v1.GetRecoveryPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetRecoveryPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every group's own policy (runtime and policy file), ordered by group.
     * Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListRecoveryPoliciesResponse listRecoveryPolicies(dev.outrider.v1.ListRecoveryPoliciesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListRecoveryPoliciesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets the agent's retry count to 0 (becoming healthy does not). A no-op for
     * an agent without attempts. Operator only. INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.ResetRetryCounterResponse resetRetryCounter(dev.outrider.v1.ResetRetryCounterRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResetRetryCounterMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recorded recovery attempts, newest first, with filters. Durable.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token,
     * end_time before start_time.
     * </pre>
     */
    public dev.outrider.v1.GetRecoveryHistoryResponse getRecoveryHistory(dev.outrider.v1.GetRecoveryHistoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetRecoveryHistoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's retry count; 0 for an agent without attempts (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.GetRetryCountResponse getRetryCount(dev.outrider.v1.GetRetryCountRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetRetryCountMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Kill switch with saga handoff.
     * Kills an agent. First the kill intent is written durably (kill id, UTC
     * time). Then each in-flight step, in order, is sent as a HANDOFF command
     * to the session's substitutes, first registered first, skipping the
     * killed agent and any killed or unhealthy one: HANDED_OFF when one acks
     * SUCCESS within handoff_timeout, else (no ack in time, a FAILURE or
     * REJECTED ack, not connected) that attempt is FAILED and the next is
     * tried; with none left the step is COMPENSATED. Then the KILL
     * command is sent with callback_timeout: acked → terminated=true; not
     * connected → terminated=false, detail "not connected"; timeout or error →
     * terminated=false with the reason. At the end the agent is unregistered
     * whatever the outcome: removed from the registry (as DeregisterAgent), its
     * group, health check and retry count, every substitute list; its stream is
     * closed, its pending approvals cancelled and its leases revoked. Returns
     * when the kill is complete; a kill interrupted by a client deadline goes
     * on (see GetKill), one interrupted by a restart is completed at start-up.
     * A retry with the same request_id returns the same kill. Operator only.
     * INVALID_ARGUMENT: empty agent_id, reason UNSPECIFIED, a step missing
     * saga_id or step_id, a (saga_id, step_id) given twice, non-positive
     * timeouts. FAILED_PRECONDITION: a kill of the agent is already in progress.
     * Any agent id may be killed, registered or not (an agent that acted
     * without registering is stopped too). The id is TERMINATED in the same
     * transaction as the kill record: from then on every RPC made with its
     * credentials is refused (PERMISSION_DENIED, reason AGENT_TERMINATED) and
     * CheckAction for it answers BLOCK from the `kill-switch` guardrail with the
     * kill id in the reason, until an operator calls ReinstateAgent.
     * </pre>
     */
    public dev.outrider.v1.KillResponse kill(dev.outrider.v1.KillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getKillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lifts a kill's termination or an EJECT's quarantine: the agent's
     * credentials work again and CheckAction runs the chain for it. A killed
     * agent was unregistered: an operator registers it again (RegisterAgent).
     * Audited. Operator only. INVALID_ARGUMENT: malformed agent_id.
     * FAILED_PRECONDITION (NOT_CONTAINED): the agent is neither terminated nor
     * quarantined.
     * </pre>
     */
    public dev.outrider.v1.ReinstateAgentResponse reinstateAgent(dev.outrider.v1.ReinstateAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReinstateAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One kill, complete or in progress. NOT_FOUND: unknown kill id.
     * </pre>
     */
    public dev.outrider.v1.GetKillResponse getKill(dev.outrider.v1.GetKillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetKillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Durable kill history (survives restarts), newest first, with filters.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListKillsResponse listKills(dev.outrider.v1.ListKillsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListKillsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends an agent to a session's substitute list (kill handoffs) or a
     * group's (REPLACE promotion). Persisted. Operator only.
     * INVALID_ARGUMENT: no scope, empty agent_id. NOT_FOUND: unknown agent.
     * ALREADY_EXISTS: the agent is already in that list.
     * </pre>
     */
    public dev.outrider.v1.RegisterSubstituteResponse registerSubstitute(dev.outrider.v1.RegisterSubstituteRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterSubstituteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes an agent from a substitute list. Operator only.
     * NOT_FOUND: the agent is not in that list.
     * </pre>
     */
    public dev.outrider.v1.DeregisterSubstituteResponse deregisterSubstitute(dev.outrider.v1.DeregisterSubstituteRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeregisterSubstituteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A substitute list in trial order. Paginated.
     * INVALID_ARGUMENT: no scope, negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListSubstitutesResponse listSubstitutes(dev.outrider.v1.ListSubstitutesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSubstitutesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cascade detection.
     * Records that a failure of from_agent caused one of to_agent (breakers
     * opening report too). When `threshold` related failures fall inside
     * `window`, a CASCADE event names the agents and the policy action runs.
     * Agent credential: only with to_agent = its own id.
     * INVALID_ARGUMENT: empty from_agent or to_agent.
     * </pre>
     */
    public dev.outrider.v1.ReportFailureResponse reportFailure(dev.outrider.v1.ReportFailureRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReportFailureMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The cascade detector's settings.
     * </pre>
     */
    public dev.outrider.v1.GetCascadePolicyResponse getCascadePolicy(dev.outrider.v1.GetCascadePolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetCascadePolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Replaces the cascade detector's settings (unset fields take the
     * defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: non-positive window, threshold below 1.
     * </pre>
     */
    public dev.outrider.v1.SetCascadePolicyResponse setCascadePolicy(dev.outrider.v1.SetCascadePolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetCascadePolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Events.
     * Streams recovery events in sequence order: the stored ones after
     * start_cursor, then new ones as they happen, until the client cancels.
     * In a fleet, every sidecar's events (recovery, breaker and budget), on
     * whichever sidecar the stream is opened; a cursor from any sidecar is
     * valid on every other.
     * Without start_cursor only new events are sent. A listener that
     * reconnects with the last sequence it saw misses nothing.
     * OUT_OF_RANGE: start_cursor is above the latest sequence, or events after
     * it have been pruned by retention (resync with ListRecoveryEvents).
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.outrider.v1.WatchRecoveryEventsResponse>
        watchRecoveryEvents(dev.outrider.v1.WatchRecoveryEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchRecoveryEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stored recovery events, newest first, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListRecoveryEventsResponse listRecoveryEvents(dev.outrider.v1.ListRecoveryEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListRecoveryEventsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service RecoveryService.
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public static final class RecoveryServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<RecoveryServiceBlockingStub> {
    private RecoveryServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecoveryServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecoveryServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Liveness for agents that cannot hold a stream: refreshes the agent's
     * last-seen time (what heartbeat checks measure). Commands are delivered
     * only over Attach. Agent credential: its own agent_id only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.HeartbeatResponse heartbeat(dev.outrider.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Health checks.
     * Sets the agent's health check, replacing the one it had (an agent has at
     * most one). Persisted. Operator only.
     * INVALID_ARGUMENT: no kind set, empty grpc target, a url that is not
     * http(s), a non-positive timeout or silence threshold. NOT_FOUND: unknown
     * agent.
     * </pre>
     */
    public dev.outrider.v1.AddHealthCheckResponse addHealthCheck(dev.outrider.v1.AddHealthCheckRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddHealthCheckMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes the agent's health check. Operator only.
     * NOT_FOUND: the agent has no health check.
     * </pre>
     */
    public dev.outrider.v1.RemoveHealthCheckResponse removeHealthCheck(dev.outrider.v1.RemoveHealthCheckRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemoveHealthCheckMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs every health check at a fixed rate until StopMonitoring (a scheduler
     * job; persisted, so a restarted sidecar resumes it). Calling it while
     * running reschedules with the new interval. Operator only.
     * INVALID_ARGUMENT: non-positive interval.
     * </pre>
     */
    public dev.outrider.v1.StartMonitoringResponse startMonitoring(dev.outrider.v1.StartMonitoringRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStartMonitoringMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stops the periodic job; a no-op when not running. Operator only.
     * </pre>
     */
    public dev.outrider.v1.StopMonitoringResponse stopMonitoring(dev.outrider.v1.StopMonitoringRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStopMonitoringMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Whether the periodic job runs, and when it ran last and runs next.
     * </pre>
     */
    public dev.outrider.v1.GetMonitoringStateResponse getMonitoringState(dev.outrider.v1.GetMonitoringStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetMonitoringStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs every check once and returns a HealthStatus per agent that has a
     * check and is still a member of its group (others are skipped). Checks
     * run concurrently, each under its own timeout: a slow agent never delays
     * the others. A failed or throwing check emits HEALTH_CHECK_FAILED and
     * starts a recovery attempt, returned in `recoveries`. Operator only.
     * </pre>
     */
    public dev.outrider.v1.RunHealthChecksResponse runHealthChecks(dev.outrider.v1.RunHealthChecksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRunHealthChecksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One agent's health, retry count and connection. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.GetAgentRecoveryStatusResponse getAgentRecoveryStatus(dev.outrider.v1.GetAgentRecoveryStatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAgentRecoveryStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every registered agent's status, ordered by agent id. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAgentRecoveryStatusesResponse listAgentRecoveryStatuses(dev.outrider.v1.ListAgentRecoveryStatusesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentRecoveryStatusesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recovery (the SupervisorAgent library's semantics, exactly).
     * Starts a recovery attempt for the agent. Within the cooldown of its
     * previous attempt nothing happens and a failed result with in_cooldown is
     * returned. Otherwise the action is EJECT once the retry count reaches
     * max_retries, ESCALATE once it reaches escalate_after, the policy's
     * default_action before; the retry count goes up by one and the result is
     * recorded in the history and emitted (RECOVERY_ATTEMPT, plus ESCALATION
     * for ESCALATE). Operator only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public dev.outrider.v1.TriggerRecoveryResponse triggerRecovery(dev.outrider.v1.TriggerRecoveryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getTriggerRecoveryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets a group's recovery policy, replacing the whole of it (unset fields
     * take the defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: negative max_retries or escalate_after, negative
     * cooldown.
     * </pre>
     */
    public dev.outrider.v1.SetRecoveryPolicyResponse setRecoveryPolicy(dev.outrider.v1.SetRecoveryPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetRecoveryPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The effective policy of a group: its own, else the defaults (`source`
     * says which). Never NOT_FOUND.
     * </pre>
     */
    public dev.outrider.v1.GetRecoveryPolicyResponse getRecoveryPolicy(dev.outrider.v1.GetRecoveryPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetRecoveryPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every group's own policy (runtime and policy file), ordered by group.
     * Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListRecoveryPoliciesResponse listRecoveryPolicies(dev.outrider.v1.ListRecoveryPoliciesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListRecoveryPoliciesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets the agent's retry count to 0 (becoming healthy does not). A no-op for
     * an agent without attempts. Operator only. INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.ResetRetryCounterResponse resetRetryCounter(dev.outrider.v1.ResetRetryCounterRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResetRetryCounterMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recorded recovery attempts, newest first, with filters. Durable.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token,
     * end_time before start_time.
     * </pre>
     */
    public dev.outrider.v1.GetRecoveryHistoryResponse getRecoveryHistory(dev.outrider.v1.GetRecoveryHistoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetRecoveryHistoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's retry count; 0 for an agent without attempts (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.GetRetryCountResponse getRetryCount(dev.outrider.v1.GetRetryCountRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetRetryCountMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Kill switch with saga handoff.
     * Kills an agent. First the kill intent is written durably (kill id, UTC
     * time). Then each in-flight step, in order, is sent as a HANDOFF command
     * to the session's substitutes, first registered first, skipping the
     * killed agent and any killed or unhealthy one: HANDED_OFF when one acks
     * SUCCESS within handoff_timeout, else (no ack in time, a FAILURE or
     * REJECTED ack, not connected) that attempt is FAILED and the next is
     * tried; with none left the step is COMPENSATED. Then the KILL
     * command is sent with callback_timeout: acked → terminated=true; not
     * connected → terminated=false, detail "not connected"; timeout or error →
     * terminated=false with the reason. At the end the agent is unregistered
     * whatever the outcome: removed from the registry (as DeregisterAgent), its
     * group, health check and retry count, every substitute list; its stream is
     * closed, its pending approvals cancelled and its leases revoked. Returns
     * when the kill is complete; a kill interrupted by a client deadline goes
     * on (see GetKill), one interrupted by a restart is completed at start-up.
     * A retry with the same request_id returns the same kill. Operator only.
     * INVALID_ARGUMENT: empty agent_id, reason UNSPECIFIED, a step missing
     * saga_id or step_id, a (saga_id, step_id) given twice, non-positive
     * timeouts. FAILED_PRECONDITION: a kill of the agent is already in progress.
     * Any agent id may be killed, registered or not (an agent that acted
     * without registering is stopped too). The id is TERMINATED in the same
     * transaction as the kill record: from then on every RPC made with its
     * credentials is refused (PERMISSION_DENIED, reason AGENT_TERMINATED) and
     * CheckAction for it answers BLOCK from the `kill-switch` guardrail with the
     * kill id in the reason, until an operator calls ReinstateAgent.
     * </pre>
     */
    public dev.outrider.v1.KillResponse kill(dev.outrider.v1.KillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getKillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lifts a kill's termination or an EJECT's quarantine: the agent's
     * credentials work again and CheckAction runs the chain for it. A killed
     * agent was unregistered: an operator registers it again (RegisterAgent).
     * Audited. Operator only. INVALID_ARGUMENT: malformed agent_id.
     * FAILED_PRECONDITION (NOT_CONTAINED): the agent is neither terminated nor
     * quarantined.
     * </pre>
     */
    public dev.outrider.v1.ReinstateAgentResponse reinstateAgent(dev.outrider.v1.ReinstateAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReinstateAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One kill, complete or in progress. NOT_FOUND: unknown kill id.
     * </pre>
     */
    public dev.outrider.v1.GetKillResponse getKill(dev.outrider.v1.GetKillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetKillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Durable kill history (survives restarts), newest first, with filters.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListKillsResponse listKills(dev.outrider.v1.ListKillsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListKillsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends an agent to a session's substitute list (kill handoffs) or a
     * group's (REPLACE promotion). Persisted. Operator only.
     * INVALID_ARGUMENT: no scope, empty agent_id. NOT_FOUND: unknown agent.
     * ALREADY_EXISTS: the agent is already in that list.
     * </pre>
     */
    public dev.outrider.v1.RegisterSubstituteResponse registerSubstitute(dev.outrider.v1.RegisterSubstituteRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterSubstituteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes an agent from a substitute list. Operator only.
     * NOT_FOUND: the agent is not in that list.
     * </pre>
     */
    public dev.outrider.v1.DeregisterSubstituteResponse deregisterSubstitute(dev.outrider.v1.DeregisterSubstituteRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeregisterSubstituteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A substitute list in trial order. Paginated.
     * INVALID_ARGUMENT: no scope, negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListSubstitutesResponse listSubstitutes(dev.outrider.v1.ListSubstitutesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSubstitutesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cascade detection.
     * Records that a failure of from_agent caused one of to_agent (breakers
     * opening report too). When `threshold` related failures fall inside
     * `window`, a CASCADE event names the agents and the policy action runs.
     * Agent credential: only with to_agent = its own id.
     * INVALID_ARGUMENT: empty from_agent or to_agent.
     * </pre>
     */
    public dev.outrider.v1.ReportFailureResponse reportFailure(dev.outrider.v1.ReportFailureRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReportFailureMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The cascade detector's settings.
     * </pre>
     */
    public dev.outrider.v1.GetCascadePolicyResponse getCascadePolicy(dev.outrider.v1.GetCascadePolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetCascadePolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Replaces the cascade detector's settings (unset fields take the
     * defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: non-positive window, threshold below 1.
     * </pre>
     */
    public dev.outrider.v1.SetCascadePolicyResponse setCascadePolicy(dev.outrider.v1.SetCascadePolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetCascadePolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Events.
     * Streams recovery events in sequence order: the stored ones after
     * start_cursor, then new ones as they happen, until the client cancels.
     * In a fleet, every sidecar's events (recovery, breaker and budget), on
     * whichever sidecar the stream is opened; a cursor from any sidecar is
     * valid on every other.
     * Without start_cursor only new events are sent. A listener that
     * reconnects with the last sequence it saw misses nothing.
     * OUT_OF_RANGE: start_cursor is above the latest sequence, or events after
     * it have been pruned by retention (resync with ListRecoveryEvents).
     * </pre>
     */
    public java.util.Iterator<dev.outrider.v1.WatchRecoveryEventsResponse> watchRecoveryEvents(
        dev.outrider.v1.WatchRecoveryEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchRecoveryEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stored recovery events, newest first, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListRecoveryEventsResponse listRecoveryEvents(dev.outrider.v1.ListRecoveryEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListRecoveryEventsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service RecoveryService.
   * <pre>
   * When an agent dies or drifts: health checks, the recovery ladder of the
   * SupervisorAgent library (AgentRecoveryManager), the kill switch with durable
   * saga handoff and cascade detection of the Agent Governance Toolkit, the
   * agent control channel, and one durable
   * event stream for every listener.
   * A recovery outcome (an attempt refused in cooldown, a handoff that failed,
   * terminated=false) is response data; a gRPC error means the sidecar could
   * not answer. Errors carry a google.rpc.ErrorInfo with domain "outrider.dev".
   * Every RPC may also answer UNAUTHENTICATED (missing or bad credential) and
   * PERMISSION_DENIED (an RPC marked "Operator only" called with an agent
   * credential, or an agent credential acting as another agent_id).
   * Agent ids, group names and session ids are 1-128 characters.
   * </pre>
   */
  public static final class RecoveryServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<RecoveryServiceFutureStub> {
    private RecoveryServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RecoveryServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RecoveryServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Liveness for agents that cannot hold a stream: refreshes the agent's
     * last-seen time (what heartbeat checks measure). Commands are delivered
     * only over Attach. Agent credential: its own agent_id only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.HeartbeatResponse> heartbeat(
        dev.outrider.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Health checks.
     * Sets the agent's health check, replacing the one it had (an agent has at
     * most one). Persisted. Operator only.
     * INVALID_ARGUMENT: no kind set, empty grpc target, a url that is not
     * http(s), a non-positive timeout or silence threshold. NOT_FOUND: unknown
     * agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AddHealthCheckResponse> addHealthCheck(
        dev.outrider.v1.AddHealthCheckRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddHealthCheckMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes the agent's health check. Operator only.
     * NOT_FOUND: the agent has no health check.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RemoveHealthCheckResponse> removeHealthCheck(
        dev.outrider.v1.RemoveHealthCheckRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemoveHealthCheckMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs every health check at a fixed rate until StopMonitoring (a scheduler
     * job; persisted, so a restarted sidecar resumes it). Calling it while
     * running reschedules with the new interval. Operator only.
     * INVALID_ARGUMENT: non-positive interval.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.StartMonitoringResponse> startMonitoring(
        dev.outrider.v1.StartMonitoringRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStartMonitoringMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Stops the periodic job; a no-op when not running. Operator only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.StopMonitoringResponse> stopMonitoring(
        dev.outrider.v1.StopMonitoringRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStopMonitoringMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Whether the periodic job runs, and when it ran last and runs next.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetMonitoringStateResponse> getMonitoringState(
        dev.outrider.v1.GetMonitoringStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetMonitoringStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs every check once and returns a HealthStatus per agent that has a
     * check and is still a member of its group (others are skipped). Checks
     * run concurrently, each under its own timeout: a slow agent never delays
     * the others. A failed or throwing check emits HEALTH_CHECK_FAILED and
     * starts a recovery attempt, returned in `recoveries`. Operator only.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RunHealthChecksResponse> runHealthChecks(
        dev.outrider.v1.RunHealthChecksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRunHealthChecksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One agent's health, retry count and connection. NOT_FOUND: unknown agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetAgentRecoveryStatusResponse> getAgentRecoveryStatus(
        dev.outrider.v1.GetAgentRecoveryStatusRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAgentRecoveryStatusMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Every registered agent's status, ordered by agent id. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListAgentRecoveryStatusesResponse> listAgentRecoveryStatuses(
        dev.outrider.v1.ListAgentRecoveryStatusesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentRecoveryStatusesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Recovery (the SupervisorAgent library's semantics, exactly).
     * Starts a recovery attempt for the agent. Within the cooldown of its
     * previous attempt nothing happens and a failed result with in_cooldown is
     * returned. Otherwise the action is EJECT once the retry count reaches
     * max_retries, ESCALATE once it reaches escalate_after, the policy's
     * default_action before; the retry count goes up by one and the result is
     * recorded in the history and emitted (RECOVERY_ATTEMPT, plus ESCALATION
     * for ESCALATE). Operator only.
     * INVALID_ARGUMENT: empty agent_id. NOT_FOUND: unknown agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.TriggerRecoveryResponse> triggerRecovery(
        dev.outrider.v1.TriggerRecoveryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getTriggerRecoveryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets a group's recovery policy, replacing the whole of it (unset fields
     * take the defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: negative max_retries or escalate_after, negative
     * cooldown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.SetRecoveryPolicyResponse> setRecoveryPolicy(
        dev.outrider.v1.SetRecoveryPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetRecoveryPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The effective policy of a group: its own, else the defaults (`source`
     * says which). Never NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetRecoveryPolicyResponse> getRecoveryPolicy(
        dev.outrider.v1.GetRecoveryPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetRecoveryPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Every group's own policy (runtime and policy file), ordered by group.
     * Paginated.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListRecoveryPoliciesResponse> listRecoveryPolicies(
        dev.outrider.v1.ListRecoveryPoliciesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListRecoveryPoliciesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets the agent's retry count to 0 (becoming healthy does not). A no-op for
     * an agent without attempts. Operator only. INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ResetRetryCounterResponse> resetRetryCounter(
        dev.outrider.v1.ResetRetryCounterRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResetRetryCounterMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Recorded recovery attempts, newest first, with filters. Durable.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token,
     * end_time before start_time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetRecoveryHistoryResponse> getRecoveryHistory(
        dev.outrider.v1.GetRecoveryHistoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetRecoveryHistoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The agent's retry count; 0 for an agent without attempts (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetRetryCountResponse> getRetryCount(
        dev.outrider.v1.GetRetryCountRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetRetryCountMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Kill switch with saga handoff.
     * Kills an agent. First the kill intent is written durably (kill id, UTC
     * time). Then each in-flight step, in order, is sent as a HANDOFF command
     * to the session's substitutes, first registered first, skipping the
     * killed agent and any killed or unhealthy one: HANDED_OFF when one acks
     * SUCCESS within handoff_timeout, else (no ack in time, a FAILURE or
     * REJECTED ack, not connected) that attempt is FAILED and the next is
     * tried; with none left the step is COMPENSATED. Then the KILL
     * command is sent with callback_timeout: acked → terminated=true; not
     * connected → terminated=false, detail "not connected"; timeout or error →
     * terminated=false with the reason. At the end the agent is unregistered
     * whatever the outcome: removed from the registry (as DeregisterAgent), its
     * group, health check and retry count, every substitute list; its stream is
     * closed, its pending approvals cancelled and its leases revoked. Returns
     * when the kill is complete; a kill interrupted by a client deadline goes
     * on (see GetKill), one interrupted by a restart is completed at start-up.
     * A retry with the same request_id returns the same kill. Operator only.
     * INVALID_ARGUMENT: empty agent_id, reason UNSPECIFIED, a step missing
     * saga_id or step_id, a (saga_id, step_id) given twice, non-positive
     * timeouts. FAILED_PRECONDITION: a kill of the agent is already in progress.
     * Any agent id may be killed, registered or not (an agent that acted
     * without registering is stopped too). The id is TERMINATED in the same
     * transaction as the kill record: from then on every RPC made with its
     * credentials is refused (PERMISSION_DENIED, reason AGENT_TERMINATED) and
     * CheckAction for it answers BLOCK from the `kill-switch` guardrail with the
     * kill id in the reason, until an operator calls ReinstateAgent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.KillResponse> kill(
        dev.outrider.v1.KillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getKillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lifts a kill's termination or an EJECT's quarantine: the agent's
     * credentials work again and CheckAction runs the chain for it. A killed
     * agent was unregistered: an operator registers it again (RegisterAgent).
     * Audited. Operator only. INVALID_ARGUMENT: malformed agent_id.
     * FAILED_PRECONDITION (NOT_CONTAINED): the agent is neither terminated nor
     * quarantined.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReinstateAgentResponse> reinstateAgent(
        dev.outrider.v1.ReinstateAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReinstateAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One kill, complete or in progress. NOT_FOUND: unknown kill id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetKillResponse> getKill(
        dev.outrider.v1.GetKillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetKillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Durable kill history (survives restarts), newest first, with filters.
     * Paginated. INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListKillsResponse> listKills(
        dev.outrider.v1.ListKillsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListKillsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Appends an agent to a session's substitute list (kill handoffs) or a
     * group's (REPLACE promotion). Persisted. Operator only.
     * INVALID_ARGUMENT: no scope, empty agent_id. NOT_FOUND: unknown agent.
     * ALREADY_EXISTS: the agent is already in that list.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RegisterSubstituteResponse> registerSubstitute(
        dev.outrider.v1.RegisterSubstituteRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterSubstituteMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes an agent from a substitute list. Operator only.
     * NOT_FOUND: the agent is not in that list.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.DeregisterSubstituteResponse> deregisterSubstitute(
        dev.outrider.v1.DeregisterSubstituteRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeregisterSubstituteMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A substitute list in trial order. Paginated.
     * INVALID_ARGUMENT: no scope, negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListSubstitutesResponse> listSubstitutes(
        dev.outrider.v1.ListSubstitutesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSubstitutesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Cascade detection.
     * Records that a failure of from_agent caused one of to_agent (breakers
     * opening report too). When `threshold` related failures fall inside
     * `window`, a CASCADE event names the agents and the policy action runs.
     * Agent credential: only with to_agent = its own id.
     * INVALID_ARGUMENT: empty from_agent or to_agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReportFailureResponse> reportFailure(
        dev.outrider.v1.ReportFailureRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReportFailureMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The cascade detector's settings.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetCascadePolicyResponse> getCascadePolicy(
        dev.outrider.v1.GetCascadePolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetCascadePolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Replaces the cascade detector's settings (unset fields take the
     * defaults). Persisted. Operator only.
     * INVALID_ARGUMENT: non-positive window, threshold below 1.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.SetCascadePolicyResponse> setCascadePolicy(
        dev.outrider.v1.SetCascadePolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetCascadePolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Stored recovery events, newest first, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListRecoveryEventsResponse> listRecoveryEvents(
        dev.outrider.v1.ListRecoveryEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListRecoveryEventsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_HEARTBEAT = 0;
  private static final int METHODID_ADD_HEALTH_CHECK = 1;
  private static final int METHODID_REMOVE_HEALTH_CHECK = 2;
  private static final int METHODID_START_MONITORING = 3;
  private static final int METHODID_STOP_MONITORING = 4;
  private static final int METHODID_GET_MONITORING_STATE = 5;
  private static final int METHODID_RUN_HEALTH_CHECKS = 6;
  private static final int METHODID_GET_AGENT_RECOVERY_STATUS = 7;
  private static final int METHODID_LIST_AGENT_RECOVERY_STATUSES = 8;
  private static final int METHODID_TRIGGER_RECOVERY = 9;
  private static final int METHODID_SET_RECOVERY_POLICY = 10;
  private static final int METHODID_GET_RECOVERY_POLICY = 11;
  private static final int METHODID_LIST_RECOVERY_POLICIES = 12;
  private static final int METHODID_RESET_RETRY_COUNTER = 13;
  private static final int METHODID_GET_RECOVERY_HISTORY = 14;
  private static final int METHODID_GET_RETRY_COUNT = 15;
  private static final int METHODID_KILL = 16;
  private static final int METHODID_REINSTATE_AGENT = 17;
  private static final int METHODID_GET_KILL = 18;
  private static final int METHODID_LIST_KILLS = 19;
  private static final int METHODID_REGISTER_SUBSTITUTE = 20;
  private static final int METHODID_DEREGISTER_SUBSTITUTE = 21;
  private static final int METHODID_LIST_SUBSTITUTES = 22;
  private static final int METHODID_REPORT_FAILURE = 23;
  private static final int METHODID_GET_CASCADE_POLICY = 24;
  private static final int METHODID_SET_CASCADE_POLICY = 25;
  private static final int METHODID_WATCH_RECOVERY_EVENTS = 26;
  private static final int METHODID_LIST_RECOVERY_EVENTS = 27;
  private static final int METHODID_ATTACH = 28;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_HEARTBEAT:
          serviceImpl.heartbeat((dev.outrider.v1.HeartbeatRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.HeartbeatResponse>) responseObserver);
          break;
        case METHODID_ADD_HEALTH_CHECK:
          serviceImpl.addHealthCheck((dev.outrider.v1.AddHealthCheckRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AddHealthCheckResponse>) responseObserver);
          break;
        case METHODID_REMOVE_HEALTH_CHECK:
          serviceImpl.removeHealthCheck((dev.outrider.v1.RemoveHealthCheckRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveHealthCheckResponse>) responseObserver);
          break;
        case METHODID_START_MONITORING:
          serviceImpl.startMonitoring((dev.outrider.v1.StartMonitoringRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.StartMonitoringResponse>) responseObserver);
          break;
        case METHODID_STOP_MONITORING:
          serviceImpl.stopMonitoring((dev.outrider.v1.StopMonitoringRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.StopMonitoringResponse>) responseObserver);
          break;
        case METHODID_GET_MONITORING_STATE:
          serviceImpl.getMonitoringState((dev.outrider.v1.GetMonitoringStateRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetMonitoringStateResponse>) responseObserver);
          break;
        case METHODID_RUN_HEALTH_CHECKS:
          serviceImpl.runHealthChecks((dev.outrider.v1.RunHealthChecksRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RunHealthChecksResponse>) responseObserver);
          break;
        case METHODID_GET_AGENT_RECOVERY_STATUS:
          serviceImpl.getAgentRecoveryStatus((dev.outrider.v1.GetAgentRecoveryStatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentRecoveryStatusResponse>) responseObserver);
          break;
        case METHODID_LIST_AGENT_RECOVERY_STATUSES:
          serviceImpl.listAgentRecoveryStatuses((dev.outrider.v1.ListAgentRecoveryStatusesRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentRecoveryStatusesResponse>) responseObserver);
          break;
        case METHODID_TRIGGER_RECOVERY:
          serviceImpl.triggerRecovery((dev.outrider.v1.TriggerRecoveryRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.TriggerRecoveryResponse>) responseObserver);
          break;
        case METHODID_SET_RECOVERY_POLICY:
          serviceImpl.setRecoveryPolicy((dev.outrider.v1.SetRecoveryPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.SetRecoveryPolicyResponse>) responseObserver);
          break;
        case METHODID_GET_RECOVERY_POLICY:
          serviceImpl.getRecoveryPolicy((dev.outrider.v1.GetRecoveryPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryPolicyResponse>) responseObserver);
          break;
        case METHODID_LIST_RECOVERY_POLICIES:
          serviceImpl.listRecoveryPolicies((dev.outrider.v1.ListRecoveryPoliciesRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryPoliciesResponse>) responseObserver);
          break;
        case METHODID_RESET_RETRY_COUNTER:
          serviceImpl.resetRetryCounter((dev.outrider.v1.ResetRetryCounterRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ResetRetryCounterResponse>) responseObserver);
          break;
        case METHODID_GET_RECOVERY_HISTORY:
          serviceImpl.getRecoveryHistory((dev.outrider.v1.GetRecoveryHistoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetRecoveryHistoryResponse>) responseObserver);
          break;
        case METHODID_GET_RETRY_COUNT:
          serviceImpl.getRetryCount((dev.outrider.v1.GetRetryCountRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetRetryCountResponse>) responseObserver);
          break;
        case METHODID_KILL:
          serviceImpl.kill((dev.outrider.v1.KillRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.KillResponse>) responseObserver);
          break;
        case METHODID_REINSTATE_AGENT:
          serviceImpl.reinstateAgent((dev.outrider.v1.ReinstateAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReinstateAgentResponse>) responseObserver);
          break;
        case METHODID_GET_KILL:
          serviceImpl.getKill((dev.outrider.v1.GetKillRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetKillResponse>) responseObserver);
          break;
        case METHODID_LIST_KILLS:
          serviceImpl.listKills((dev.outrider.v1.ListKillsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListKillsResponse>) responseObserver);
          break;
        case METHODID_REGISTER_SUBSTITUTE:
          serviceImpl.registerSubstitute((dev.outrider.v1.RegisterSubstituteRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterSubstituteResponse>) responseObserver);
          break;
        case METHODID_DEREGISTER_SUBSTITUTE:
          serviceImpl.deregisterSubstitute((dev.outrider.v1.DeregisterSubstituteRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterSubstituteResponse>) responseObserver);
          break;
        case METHODID_LIST_SUBSTITUTES:
          serviceImpl.listSubstitutes((dev.outrider.v1.ListSubstitutesRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListSubstitutesResponse>) responseObserver);
          break;
        case METHODID_REPORT_FAILURE:
          serviceImpl.reportFailure((dev.outrider.v1.ReportFailureRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReportFailureResponse>) responseObserver);
          break;
        case METHODID_GET_CASCADE_POLICY:
          serviceImpl.getCascadePolicy((dev.outrider.v1.GetCascadePolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetCascadePolicyResponse>) responseObserver);
          break;
        case METHODID_SET_CASCADE_POLICY:
          serviceImpl.setCascadePolicy((dev.outrider.v1.SetCascadePolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.SetCascadePolicyResponse>) responseObserver);
          break;
        case METHODID_WATCH_RECOVERY_EVENTS:
          serviceImpl.watchRecoveryEvents((dev.outrider.v1.WatchRecoveryEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.WatchRecoveryEventsResponse>) responseObserver);
          break;
        case METHODID_LIST_RECOVERY_EVENTS:
          serviceImpl.listRecoveryEvents((dev.outrider.v1.ListRecoveryEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListRecoveryEventsResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_ATTACH:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.attach(
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AttachResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getAttachMethod(),
          io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
            new MethodHandlers<
              dev.outrider.v1.AttachRequest,
              dev.outrider.v1.AttachResponse>(
                service, METHODID_ATTACH)))
        .addMethod(
          getHeartbeatMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.HeartbeatRequest,
              dev.outrider.v1.HeartbeatResponse>(
                service, METHODID_HEARTBEAT)))
        .addMethod(
          getAddHealthCheckMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AddHealthCheckRequest,
              dev.outrider.v1.AddHealthCheckResponse>(
                service, METHODID_ADD_HEALTH_CHECK)))
        .addMethod(
          getRemoveHealthCheckMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RemoveHealthCheckRequest,
              dev.outrider.v1.RemoveHealthCheckResponse>(
                service, METHODID_REMOVE_HEALTH_CHECK)))
        .addMethod(
          getStartMonitoringMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.StartMonitoringRequest,
              dev.outrider.v1.StartMonitoringResponse>(
                service, METHODID_START_MONITORING)))
        .addMethod(
          getStopMonitoringMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.StopMonitoringRequest,
              dev.outrider.v1.StopMonitoringResponse>(
                service, METHODID_STOP_MONITORING)))
        .addMethod(
          getGetMonitoringStateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetMonitoringStateRequest,
              dev.outrider.v1.GetMonitoringStateResponse>(
                service, METHODID_GET_MONITORING_STATE)))
        .addMethod(
          getRunHealthChecksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RunHealthChecksRequest,
              dev.outrider.v1.RunHealthChecksResponse>(
                service, METHODID_RUN_HEALTH_CHECKS)))
        .addMethod(
          getGetAgentRecoveryStatusMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetAgentRecoveryStatusRequest,
              dev.outrider.v1.GetAgentRecoveryStatusResponse>(
                service, METHODID_GET_AGENT_RECOVERY_STATUS)))
        .addMethod(
          getListAgentRecoveryStatusesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListAgentRecoveryStatusesRequest,
              dev.outrider.v1.ListAgentRecoveryStatusesResponse>(
                service, METHODID_LIST_AGENT_RECOVERY_STATUSES)))
        .addMethod(
          getTriggerRecoveryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.TriggerRecoveryRequest,
              dev.outrider.v1.TriggerRecoveryResponse>(
                service, METHODID_TRIGGER_RECOVERY)))
        .addMethod(
          getSetRecoveryPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.SetRecoveryPolicyRequest,
              dev.outrider.v1.SetRecoveryPolicyResponse>(
                service, METHODID_SET_RECOVERY_POLICY)))
        .addMethod(
          getGetRecoveryPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetRecoveryPolicyRequest,
              dev.outrider.v1.GetRecoveryPolicyResponse>(
                service, METHODID_GET_RECOVERY_POLICY)))
        .addMethod(
          getListRecoveryPoliciesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListRecoveryPoliciesRequest,
              dev.outrider.v1.ListRecoveryPoliciesResponse>(
                service, METHODID_LIST_RECOVERY_POLICIES)))
        .addMethod(
          getResetRetryCounterMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ResetRetryCounterRequest,
              dev.outrider.v1.ResetRetryCounterResponse>(
                service, METHODID_RESET_RETRY_COUNTER)))
        .addMethod(
          getGetRecoveryHistoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetRecoveryHistoryRequest,
              dev.outrider.v1.GetRecoveryHistoryResponse>(
                service, METHODID_GET_RECOVERY_HISTORY)))
        .addMethod(
          getGetRetryCountMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetRetryCountRequest,
              dev.outrider.v1.GetRetryCountResponse>(
                service, METHODID_GET_RETRY_COUNT)))
        .addMethod(
          getKillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.KillRequest,
              dev.outrider.v1.KillResponse>(
                service, METHODID_KILL)))
        .addMethod(
          getReinstateAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReinstateAgentRequest,
              dev.outrider.v1.ReinstateAgentResponse>(
                service, METHODID_REINSTATE_AGENT)))
        .addMethod(
          getGetKillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetKillRequest,
              dev.outrider.v1.GetKillResponse>(
                service, METHODID_GET_KILL)))
        .addMethod(
          getListKillsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListKillsRequest,
              dev.outrider.v1.ListKillsResponse>(
                service, METHODID_LIST_KILLS)))
        .addMethod(
          getRegisterSubstituteMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RegisterSubstituteRequest,
              dev.outrider.v1.RegisterSubstituteResponse>(
                service, METHODID_REGISTER_SUBSTITUTE)))
        .addMethod(
          getDeregisterSubstituteMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.DeregisterSubstituteRequest,
              dev.outrider.v1.DeregisterSubstituteResponse>(
                service, METHODID_DEREGISTER_SUBSTITUTE)))
        .addMethod(
          getListSubstitutesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListSubstitutesRequest,
              dev.outrider.v1.ListSubstitutesResponse>(
                service, METHODID_LIST_SUBSTITUTES)))
        .addMethod(
          getReportFailureMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReportFailureRequest,
              dev.outrider.v1.ReportFailureResponse>(
                service, METHODID_REPORT_FAILURE)))
        .addMethod(
          getGetCascadePolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetCascadePolicyRequest,
              dev.outrider.v1.GetCascadePolicyResponse>(
                service, METHODID_GET_CASCADE_POLICY)))
        .addMethod(
          getSetCascadePolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.SetCascadePolicyRequest,
              dev.outrider.v1.SetCascadePolicyResponse>(
                service, METHODID_SET_CASCADE_POLICY)))
        .addMethod(
          getWatchRecoveryEventsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.outrider.v1.WatchRecoveryEventsRequest,
              dev.outrider.v1.WatchRecoveryEventsResponse>(
                service, METHODID_WATCH_RECOVERY_EVENTS)))
        .addMethod(
          getListRecoveryEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListRecoveryEventsRequest,
              dev.outrider.v1.ListRecoveryEventsResponse>(
                service, METHODID_LIST_RECOVERY_EVENTS)))
        .build();
  }

  private static abstract class RecoveryServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RecoveryServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.outrider.v1.RecoveryServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RecoveryService");
    }
  }

  private static final class RecoveryServiceFileDescriptorSupplier
      extends RecoveryServiceBaseDescriptorSupplier {
    RecoveryServiceFileDescriptorSupplier() {}
  }

  private static final class RecoveryServiceMethodDescriptorSupplier
      extends RecoveryServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    RecoveryServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (RecoveryServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RecoveryServiceFileDescriptorSupplier())
              .addMethod(getAttachMethod())
              .addMethod(getHeartbeatMethod())
              .addMethod(getAddHealthCheckMethod())
              .addMethod(getRemoveHealthCheckMethod())
              .addMethod(getStartMonitoringMethod())
              .addMethod(getStopMonitoringMethod())
              .addMethod(getGetMonitoringStateMethod())
              .addMethod(getRunHealthChecksMethod())
              .addMethod(getGetAgentRecoveryStatusMethod())
              .addMethod(getListAgentRecoveryStatusesMethod())
              .addMethod(getTriggerRecoveryMethod())
              .addMethod(getSetRecoveryPolicyMethod())
              .addMethod(getGetRecoveryPolicyMethod())
              .addMethod(getListRecoveryPoliciesMethod())
              .addMethod(getResetRetryCounterMethod())
              .addMethod(getGetRecoveryHistoryMethod())
              .addMethod(getGetRetryCountMethod())
              .addMethod(getKillMethod())
              .addMethod(getReinstateAgentMethod())
              .addMethod(getGetKillMethod())
              .addMethod(getListKillsMethod())
              .addMethod(getRegisterSubstituteMethod())
              .addMethod(getDeregisterSubstituteMethod())
              .addMethod(getListSubstitutesMethod())
              .addMethod(getReportFailureMethod())
              .addMethod(getGetCascadePolicyMethod())
              .addMethod(getSetCascadePolicyMethod())
              .addMethod(getWatchRecoveryEventsMethod())
              .addMethod(getListRecoveryEventsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
