package dev.outrider.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Production safeguards served to every agent from one place, durable:
 * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
 * Governance Toolkit's CircuitBreaker), token budgets with context signals,
 * episodic memory, execution leases (the SandboxExecutionGuard contract),
 * reversibility assessment and plan validation (the Agent Governance
 * Toolkit). Each remote API is
 * shaped for a client that runs the real work itself.
 * A safeguard outcome (permit refused, budget short, plan violations) is
 * response data; a gRPC error means the sidecar could not answer. Errors carry
 * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
 * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
 * marked "Operator only" called with an agent credential, or an agent
 * credential acting for another agent: breaker keys other than its agent id or
 * `agent_id:...`, another agent's budget, leases or episodes).
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class SafeguardServiceGrpc {

  private SafeguardServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "outrider.v1.SafeguardService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AcquirePermitRequest,
      dev.outrider.v1.AcquirePermitResponse> getAcquirePermitMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AcquirePermit",
      requestType = dev.outrider.v1.AcquirePermitRequest.class,
      responseType = dev.outrider.v1.AcquirePermitResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AcquirePermitRequest,
      dev.outrider.v1.AcquirePermitResponse> getAcquirePermitMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AcquirePermitRequest, dev.outrider.v1.AcquirePermitResponse> getAcquirePermitMethod;
    if ((getAcquirePermitMethod = SafeguardServiceGrpc.getAcquirePermitMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getAcquirePermitMethod = SafeguardServiceGrpc.getAcquirePermitMethod) == null) {
          SafeguardServiceGrpc.getAcquirePermitMethod = getAcquirePermitMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AcquirePermitRequest, dev.outrider.v1.AcquirePermitResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AcquirePermit"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AcquirePermitRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AcquirePermitResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("AcquirePermit"))
              .build();
        }
      }
    }
    return getAcquirePermitMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomeRequest,
      dev.outrider.v1.ReportOutcomeResponse> getReportOutcomeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReportOutcome",
      requestType = dev.outrider.v1.ReportOutcomeRequest.class,
      responseType = dev.outrider.v1.ReportOutcomeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomeRequest,
      dev.outrider.v1.ReportOutcomeResponse> getReportOutcomeMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomeRequest, dev.outrider.v1.ReportOutcomeResponse> getReportOutcomeMethod;
    if ((getReportOutcomeMethod = SafeguardServiceGrpc.getReportOutcomeMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getReportOutcomeMethod = SafeguardServiceGrpc.getReportOutcomeMethod) == null) {
          SafeguardServiceGrpc.getReportOutcomeMethod = getReportOutcomeMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReportOutcomeRequest, dev.outrider.v1.ReportOutcomeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReportOutcome"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportOutcomeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportOutcomeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ReportOutcome"))
              .build();
        }
      }
    }
    return getReportOutcomeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomesRequest,
      dev.outrider.v1.ReportOutcomesResponse> getReportOutcomesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReportOutcomes",
      requestType = dev.outrider.v1.ReportOutcomesRequest.class,
      responseType = dev.outrider.v1.ReportOutcomesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomesRequest,
      dev.outrider.v1.ReportOutcomesResponse> getReportOutcomesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReportOutcomesRequest, dev.outrider.v1.ReportOutcomesResponse> getReportOutcomesMethod;
    if ((getReportOutcomesMethod = SafeguardServiceGrpc.getReportOutcomesMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getReportOutcomesMethod = SafeguardServiceGrpc.getReportOutcomesMethod) == null) {
          SafeguardServiceGrpc.getReportOutcomesMethod = getReportOutcomesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReportOutcomesRequest, dev.outrider.v1.ReportOutcomesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReportOutcomes"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportOutcomesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReportOutcomesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ReportOutcomes"))
              .build();
        }
      }
    }
    return getReportOutcomesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReleasePermitRequest,
      dev.outrider.v1.ReleasePermitResponse> getReleasePermitMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReleasePermit",
      requestType = dev.outrider.v1.ReleasePermitRequest.class,
      responseType = dev.outrider.v1.ReleasePermitResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReleasePermitRequest,
      dev.outrider.v1.ReleasePermitResponse> getReleasePermitMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReleasePermitRequest, dev.outrider.v1.ReleasePermitResponse> getReleasePermitMethod;
    if ((getReleasePermitMethod = SafeguardServiceGrpc.getReleasePermitMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getReleasePermitMethod = SafeguardServiceGrpc.getReleasePermitMethod) == null) {
          SafeguardServiceGrpc.getReleasePermitMethod = getReleasePermitMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReleasePermitRequest, dev.outrider.v1.ReleasePermitResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReleasePermit"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReleasePermitRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReleasePermitResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ReleasePermit"))
              .build();
        }
      }
    }
    return getReleasePermitMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetBreakerRequest,
      dev.outrider.v1.GetBreakerResponse> getGetBreakerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetBreaker",
      requestType = dev.outrider.v1.GetBreakerRequest.class,
      responseType = dev.outrider.v1.GetBreakerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetBreakerRequest,
      dev.outrider.v1.GetBreakerResponse> getGetBreakerMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetBreakerRequest, dev.outrider.v1.GetBreakerResponse> getGetBreakerMethod;
    if ((getGetBreakerMethod = SafeguardServiceGrpc.getGetBreakerMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getGetBreakerMethod = SafeguardServiceGrpc.getGetBreakerMethod) == null) {
          SafeguardServiceGrpc.getGetBreakerMethod = getGetBreakerMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetBreakerRequest, dev.outrider.v1.GetBreakerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetBreaker"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetBreakerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetBreakerResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("GetBreaker"))
              .build();
        }
      }
    }
    return getGetBreakerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListBreakersRequest,
      dev.outrider.v1.ListBreakersResponse> getListBreakersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListBreakers",
      requestType = dev.outrider.v1.ListBreakersRequest.class,
      responseType = dev.outrider.v1.ListBreakersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListBreakersRequest,
      dev.outrider.v1.ListBreakersResponse> getListBreakersMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListBreakersRequest, dev.outrider.v1.ListBreakersResponse> getListBreakersMethod;
    if ((getListBreakersMethod = SafeguardServiceGrpc.getListBreakersMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getListBreakersMethod = SafeguardServiceGrpc.getListBreakersMethod) == null) {
          SafeguardServiceGrpc.getListBreakersMethod = getListBreakersMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListBreakersRequest, dev.outrider.v1.ListBreakersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListBreakers"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListBreakersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListBreakersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ListBreakers"))
              .build();
        }
      }
    }
    return getListBreakersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ResetBreakerRequest,
      dev.outrider.v1.ResetBreakerResponse> getResetBreakerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResetBreaker",
      requestType = dev.outrider.v1.ResetBreakerRequest.class,
      responseType = dev.outrider.v1.ResetBreakerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ResetBreakerRequest,
      dev.outrider.v1.ResetBreakerResponse> getResetBreakerMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ResetBreakerRequest, dev.outrider.v1.ResetBreakerResponse> getResetBreakerMethod;
    if ((getResetBreakerMethod = SafeguardServiceGrpc.getResetBreakerMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getResetBreakerMethod = SafeguardServiceGrpc.getResetBreakerMethod) == null) {
          SafeguardServiceGrpc.getResetBreakerMethod = getResetBreakerMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ResetBreakerRequest, dev.outrider.v1.ResetBreakerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResetBreaker"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ResetBreakerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ResetBreakerResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ResetBreaker"))
              .build();
        }
      }
    }
    return getResetBreakerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ForceOpenRequest,
      dev.outrider.v1.ForceOpenResponse> getForceOpenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ForceOpen",
      requestType = dev.outrider.v1.ForceOpenRequest.class,
      responseType = dev.outrider.v1.ForceOpenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ForceOpenRequest,
      dev.outrider.v1.ForceOpenResponse> getForceOpenMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ForceOpenRequest, dev.outrider.v1.ForceOpenResponse> getForceOpenMethod;
    if ((getForceOpenMethod = SafeguardServiceGrpc.getForceOpenMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getForceOpenMethod = SafeguardServiceGrpc.getForceOpenMethod) == null) {
          SafeguardServiceGrpc.getForceOpenMethod = getForceOpenMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ForceOpenRequest, dev.outrider.v1.ForceOpenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ForceOpen"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ForceOpenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ForceOpenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ForceOpen"))
              .build();
        }
      }
    }
    return getForceOpenMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ForceCloseRequest,
      dev.outrider.v1.ForceCloseResponse> getForceCloseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ForceClose",
      requestType = dev.outrider.v1.ForceCloseRequest.class,
      responseType = dev.outrider.v1.ForceCloseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ForceCloseRequest,
      dev.outrider.v1.ForceCloseResponse> getForceCloseMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ForceCloseRequest, dev.outrider.v1.ForceCloseResponse> getForceCloseMethod;
    if ((getForceCloseMethod = SafeguardServiceGrpc.getForceCloseMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getForceCloseMethod = SafeguardServiceGrpc.getForceCloseMethod) == null) {
          SafeguardServiceGrpc.getForceCloseMethod = getForceCloseMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ForceCloseRequest, dev.outrider.v1.ForceCloseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ForceClose"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ForceCloseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ForceCloseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ForceClose"))
              .build();
        }
      }
    }
    return getForceCloseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.SetBreakerConfigRequest,
      dev.outrider.v1.SetBreakerConfigResponse> getSetBreakerConfigMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetBreakerConfig",
      requestType = dev.outrider.v1.SetBreakerConfigRequest.class,
      responseType = dev.outrider.v1.SetBreakerConfigResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.SetBreakerConfigRequest,
      dev.outrider.v1.SetBreakerConfigResponse> getSetBreakerConfigMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.SetBreakerConfigRequest, dev.outrider.v1.SetBreakerConfigResponse> getSetBreakerConfigMethod;
    if ((getSetBreakerConfigMethod = SafeguardServiceGrpc.getSetBreakerConfigMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getSetBreakerConfigMethod = SafeguardServiceGrpc.getSetBreakerConfigMethod) == null) {
          SafeguardServiceGrpc.getSetBreakerConfigMethod = getSetBreakerConfigMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.SetBreakerConfigRequest, dev.outrider.v1.SetBreakerConfigResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetBreakerConfig"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetBreakerConfigRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetBreakerConfigResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("SetBreakerConfig"))
              .build();
        }
      }
    }
    return getSetBreakerConfigMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AllocateRequest,
      dev.outrider.v1.AllocateResponse> getAllocateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Allocate",
      requestType = dev.outrider.v1.AllocateRequest.class,
      responseType = dev.outrider.v1.AllocateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AllocateRequest,
      dev.outrider.v1.AllocateResponse> getAllocateMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AllocateRequest, dev.outrider.v1.AllocateResponse> getAllocateMethod;
    if ((getAllocateMethod = SafeguardServiceGrpc.getAllocateMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getAllocateMethod = SafeguardServiceGrpc.getAllocateMethod) == null) {
          SafeguardServiceGrpc.getAllocateMethod = getAllocateMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AllocateRequest, dev.outrider.v1.AllocateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Allocate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AllocateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AllocateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("Allocate"))
              .build();
        }
      }
    }
    return getAllocateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ConsumeRequest,
      dev.outrider.v1.ConsumeResponse> getConsumeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Consume",
      requestType = dev.outrider.v1.ConsumeRequest.class,
      responseType = dev.outrider.v1.ConsumeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ConsumeRequest,
      dev.outrider.v1.ConsumeResponse> getConsumeMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ConsumeRequest, dev.outrider.v1.ConsumeResponse> getConsumeMethod;
    if ((getConsumeMethod = SafeguardServiceGrpc.getConsumeMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getConsumeMethod = SafeguardServiceGrpc.getConsumeMethod) == null) {
          SafeguardServiceGrpc.getConsumeMethod = getConsumeMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ConsumeRequest, dev.outrider.v1.ConsumeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Consume"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ConsumeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ConsumeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("Consume"))
              .build();
        }
      }
    }
    return getConsumeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.CanConsumeRequest,
      dev.outrider.v1.CanConsumeResponse> getCanConsumeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CanConsume",
      requestType = dev.outrider.v1.CanConsumeRequest.class,
      responseType = dev.outrider.v1.CanConsumeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.CanConsumeRequest,
      dev.outrider.v1.CanConsumeResponse> getCanConsumeMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.CanConsumeRequest, dev.outrider.v1.CanConsumeResponse> getCanConsumeMethod;
    if ((getCanConsumeMethod = SafeguardServiceGrpc.getCanConsumeMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getCanConsumeMethod = SafeguardServiceGrpc.getCanConsumeMethod) == null) {
          SafeguardServiceGrpc.getCanConsumeMethod = getCanConsumeMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.CanConsumeRequest, dev.outrider.v1.CanConsumeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CanConsume"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CanConsumeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CanConsumeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("CanConsume"))
              .build();
        }
      }
    }
    return getCanConsumeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RemainingRequest,
      dev.outrider.v1.RemainingResponse> getRemainingMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Remaining",
      requestType = dev.outrider.v1.RemainingRequest.class,
      responseType = dev.outrider.v1.RemainingResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RemainingRequest,
      dev.outrider.v1.RemainingResponse> getRemainingMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RemainingRequest, dev.outrider.v1.RemainingResponse> getRemainingMethod;
    if ((getRemainingMethod = SafeguardServiceGrpc.getRemainingMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getRemainingMethod = SafeguardServiceGrpc.getRemainingMethod) == null) {
          SafeguardServiceGrpc.getRemainingMethod = getRemainingMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RemainingRequest, dev.outrider.v1.RemainingResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Remaining"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemainingRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemainingResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("Remaining"))
              .build();
        }
      }
    }
    return getRemainingMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GlobalRemainingRequest,
      dev.outrider.v1.GlobalRemainingResponse> getGlobalRemainingMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GlobalRemaining",
      requestType = dev.outrider.v1.GlobalRemainingRequest.class,
      responseType = dev.outrider.v1.GlobalRemainingResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GlobalRemainingRequest,
      dev.outrider.v1.GlobalRemainingResponse> getGlobalRemainingMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GlobalRemainingRequest, dev.outrider.v1.GlobalRemainingResponse> getGlobalRemainingMethod;
    if ((getGlobalRemainingMethod = SafeguardServiceGrpc.getGlobalRemainingMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getGlobalRemainingMethod = SafeguardServiceGrpc.getGlobalRemainingMethod) == null) {
          SafeguardServiceGrpc.getGlobalRemainingMethod = getGlobalRemainingMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GlobalRemainingRequest, dev.outrider.v1.GlobalRemainingResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GlobalRemaining"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GlobalRemainingRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GlobalRemainingResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("GlobalRemaining"))
              .build();
        }
      }
    }
    return getGlobalRemainingMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.UsagePercentRequest,
      dev.outrider.v1.UsagePercentResponse> getUsagePercentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UsagePercent",
      requestType = dev.outrider.v1.UsagePercentRequest.class,
      responseType = dev.outrider.v1.UsagePercentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.UsagePercentRequest,
      dev.outrider.v1.UsagePercentResponse> getUsagePercentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.UsagePercentRequest, dev.outrider.v1.UsagePercentResponse> getUsagePercentMethod;
    if ((getUsagePercentMethod = SafeguardServiceGrpc.getUsagePercentMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getUsagePercentMethod = SafeguardServiceGrpc.getUsagePercentMethod) == null) {
          SafeguardServiceGrpc.getUsagePercentMethod = getUsagePercentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.UsagePercentRequest, dev.outrider.v1.UsagePercentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UsagePercent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.UsagePercentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.UsagePercentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("UsagePercent"))
              .build();
        }
      }
    }
    return getUsagePercentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GlobalUsagePercentRequest,
      dev.outrider.v1.GlobalUsagePercentResponse> getGlobalUsagePercentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GlobalUsagePercent",
      requestType = dev.outrider.v1.GlobalUsagePercentRequest.class,
      responseType = dev.outrider.v1.GlobalUsagePercentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GlobalUsagePercentRequest,
      dev.outrider.v1.GlobalUsagePercentResponse> getGlobalUsagePercentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GlobalUsagePercentRequest, dev.outrider.v1.GlobalUsagePercentResponse> getGlobalUsagePercentMethod;
    if ((getGlobalUsagePercentMethod = SafeguardServiceGrpc.getGlobalUsagePercentMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getGlobalUsagePercentMethod = SafeguardServiceGrpc.getGlobalUsagePercentMethod) == null) {
          SafeguardServiceGrpc.getGlobalUsagePercentMethod = getGlobalUsagePercentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GlobalUsagePercentRequest, dev.outrider.v1.GlobalUsagePercentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GlobalUsagePercent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GlobalUsagePercentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GlobalUsagePercentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("GlobalUsagePercent"))
              .build();
        }
      }
    }
    return getGlobalUsagePercentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetAllocationRequest,
      dev.outrider.v1.GetAllocationResponse> getGetAllocationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAllocation",
      requestType = dev.outrider.v1.GetAllocationRequest.class,
      responseType = dev.outrider.v1.GetAllocationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetAllocationRequest,
      dev.outrider.v1.GetAllocationResponse> getGetAllocationMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetAllocationRequest, dev.outrider.v1.GetAllocationResponse> getGetAllocationMethod;
    if ((getGetAllocationMethod = SafeguardServiceGrpc.getGetAllocationMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getGetAllocationMethod = SafeguardServiceGrpc.getGetAllocationMethod) == null) {
          SafeguardServiceGrpc.getGetAllocationMethod = getGetAllocationMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetAllocationRequest, dev.outrider.v1.GetAllocationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAllocation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAllocationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAllocationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("GetAllocation"))
              .build();
        }
      }
    }
    return getGetAllocationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListAllocationsRequest,
      dev.outrider.v1.ListAllocationsResponse> getListAllocationsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAllocations",
      requestType = dev.outrider.v1.ListAllocationsRequest.class,
      responseType = dev.outrider.v1.ListAllocationsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListAllocationsRequest,
      dev.outrider.v1.ListAllocationsResponse> getListAllocationsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListAllocationsRequest, dev.outrider.v1.ListAllocationsResponse> getListAllocationsMethod;
    if ((getListAllocationsMethod = SafeguardServiceGrpc.getListAllocationsMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getListAllocationsMethod = SafeguardServiceGrpc.getListAllocationsMethod) == null) {
          SafeguardServiceGrpc.getListAllocationsMethod = getListAllocationsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListAllocationsRequest, dev.outrider.v1.ListAllocationsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAllocations"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAllocationsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAllocationsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ListAllocations"))
              .build();
        }
      }
    }
    return getListAllocationsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.SetGlobalBudgetRequest,
      dev.outrider.v1.SetGlobalBudgetResponse> getSetGlobalBudgetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetGlobalBudget",
      requestType = dev.outrider.v1.SetGlobalBudgetRequest.class,
      responseType = dev.outrider.v1.SetGlobalBudgetResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.SetGlobalBudgetRequest,
      dev.outrider.v1.SetGlobalBudgetResponse> getSetGlobalBudgetMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.SetGlobalBudgetRequest, dev.outrider.v1.SetGlobalBudgetResponse> getSetGlobalBudgetMethod;
    if ((getSetGlobalBudgetMethod = SafeguardServiceGrpc.getSetGlobalBudgetMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getSetGlobalBudgetMethod = SafeguardServiceGrpc.getSetGlobalBudgetMethod) == null) {
          SafeguardServiceGrpc.getSetGlobalBudgetMethod = getSetGlobalBudgetMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.SetGlobalBudgetRequest, dev.outrider.v1.SetGlobalBudgetResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetGlobalBudget"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetGlobalBudgetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SetGlobalBudgetResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("SetGlobalBudget"))
              .build();
        }
      }
    }
    return getSetGlobalBudgetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReserveRequest,
      dev.outrider.v1.ReserveResponse> getReserveMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Reserve",
      requestType = dev.outrider.v1.ReserveRequest.class,
      responseType = dev.outrider.v1.ReserveResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReserveRequest,
      dev.outrider.v1.ReserveResponse> getReserveMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReserveRequest, dev.outrider.v1.ReserveResponse> getReserveMethod;
    if ((getReserveMethod = SafeguardServiceGrpc.getReserveMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getReserveMethod = SafeguardServiceGrpc.getReserveMethod) == null) {
          SafeguardServiceGrpc.getReserveMethod = getReserveMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReserveRequest, dev.outrider.v1.ReserveResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Reserve"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReserveRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReserveResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("Reserve"))
              .build();
        }
      }
    }
    return getReserveMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.SettleRequest,
      dev.outrider.v1.SettleResponse> getSettleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Settle",
      requestType = dev.outrider.v1.SettleRequest.class,
      responseType = dev.outrider.v1.SettleResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.SettleRequest,
      dev.outrider.v1.SettleResponse> getSettleMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.SettleRequest, dev.outrider.v1.SettleResponse> getSettleMethod;
    if ((getSettleMethod = SafeguardServiceGrpc.getSettleMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getSettleMethod = SafeguardServiceGrpc.getSettleMethod) == null) {
          SafeguardServiceGrpc.getSettleMethod = getSettleMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.SettleRequest, dev.outrider.v1.SettleResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Settle"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SettleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.SettleResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("Settle"))
              .build();
        }
      }
    }
    return getSettleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RecordEpisodeRequest,
      dev.outrider.v1.RecordEpisodeResponse> getRecordEpisodeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RecordEpisode",
      requestType = dev.outrider.v1.RecordEpisodeRequest.class,
      responseType = dev.outrider.v1.RecordEpisodeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RecordEpisodeRequest,
      dev.outrider.v1.RecordEpisodeResponse> getRecordEpisodeMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RecordEpisodeRequest, dev.outrider.v1.RecordEpisodeResponse> getRecordEpisodeMethod;
    if ((getRecordEpisodeMethod = SafeguardServiceGrpc.getRecordEpisodeMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getRecordEpisodeMethod = SafeguardServiceGrpc.getRecordEpisodeMethod) == null) {
          SafeguardServiceGrpc.getRecordEpisodeMethod = getRecordEpisodeMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RecordEpisodeRequest, dev.outrider.v1.RecordEpisodeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RecordEpisode"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RecordEpisodeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RecordEpisodeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("RecordEpisode"))
              .build();
        }
      }
    }
    return getRecordEpisodeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.QuerySimilarRequest,
      dev.outrider.v1.QuerySimilarResponse> getQuerySimilarMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "QuerySimilar",
      requestType = dev.outrider.v1.QuerySimilarRequest.class,
      responseType = dev.outrider.v1.QuerySimilarResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.QuerySimilarRequest,
      dev.outrider.v1.QuerySimilarResponse> getQuerySimilarMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.QuerySimilarRequest, dev.outrider.v1.QuerySimilarResponse> getQuerySimilarMethod;
    if ((getQuerySimilarMethod = SafeguardServiceGrpc.getQuerySimilarMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getQuerySimilarMethod = SafeguardServiceGrpc.getQuerySimilarMethod) == null) {
          SafeguardServiceGrpc.getQuerySimilarMethod = getQuerySimilarMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.QuerySimilarRequest, dev.outrider.v1.QuerySimilarResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "QuerySimilar"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QuerySimilarRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QuerySimilarResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("QuerySimilar"))
              .build();
        }
      }
    }
    return getQuerySimilarMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.QueryByAgentRequest,
      dev.outrider.v1.QueryByAgentResponse> getQueryByAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "QueryByAgent",
      requestType = dev.outrider.v1.QueryByAgentRequest.class,
      responseType = dev.outrider.v1.QueryByAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.QueryByAgentRequest,
      dev.outrider.v1.QueryByAgentResponse> getQueryByAgentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.QueryByAgentRequest, dev.outrider.v1.QueryByAgentResponse> getQueryByAgentMethod;
    if ((getQueryByAgentMethod = SafeguardServiceGrpc.getQueryByAgentMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getQueryByAgentMethod = SafeguardServiceGrpc.getQueryByAgentMethod) == null) {
          SafeguardServiceGrpc.getQueryByAgentMethod = getQueryByAgentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.QueryByAgentRequest, dev.outrider.v1.QueryByAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "QueryByAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QueryByAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QueryByAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("QueryByAgent"))
              .build();
        }
      }
    }
    return getQueryByAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.QueryByOutcomeRequest,
      dev.outrider.v1.QueryByOutcomeResponse> getQueryByOutcomeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "QueryByOutcome",
      requestType = dev.outrider.v1.QueryByOutcomeRequest.class,
      responseType = dev.outrider.v1.QueryByOutcomeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.QueryByOutcomeRequest,
      dev.outrider.v1.QueryByOutcomeResponse> getQueryByOutcomeMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.QueryByOutcomeRequest, dev.outrider.v1.QueryByOutcomeResponse> getQueryByOutcomeMethod;
    if ((getQueryByOutcomeMethod = SafeguardServiceGrpc.getQueryByOutcomeMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getQueryByOutcomeMethod = SafeguardServiceGrpc.getQueryByOutcomeMethod) == null) {
          SafeguardServiceGrpc.getQueryByOutcomeMethod = getQueryByOutcomeMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.QueryByOutcomeRequest, dev.outrider.v1.QueryByOutcomeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "QueryByOutcome"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QueryByOutcomeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.QueryByOutcomeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("QueryByOutcome"))
              .build();
        }
      }
    }
    return getQueryByOutcomeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AcquireLeaseRequest,
      dev.outrider.v1.AcquireLeaseResponse> getAcquireLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AcquireLease",
      requestType = dev.outrider.v1.AcquireLeaseRequest.class,
      responseType = dev.outrider.v1.AcquireLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AcquireLeaseRequest,
      dev.outrider.v1.AcquireLeaseResponse> getAcquireLeaseMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AcquireLeaseRequest, dev.outrider.v1.AcquireLeaseResponse> getAcquireLeaseMethod;
    if ((getAcquireLeaseMethod = SafeguardServiceGrpc.getAcquireLeaseMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getAcquireLeaseMethod = SafeguardServiceGrpc.getAcquireLeaseMethod) == null) {
          SafeguardServiceGrpc.getAcquireLeaseMethod = getAcquireLeaseMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AcquireLeaseRequest, dev.outrider.v1.AcquireLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AcquireLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AcquireLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AcquireLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("AcquireLease"))
              .build();
        }
      }
    }
    return getAcquireLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RenewLeaseRequest,
      dev.outrider.v1.RenewLeaseResponse> getRenewLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RenewLease",
      requestType = dev.outrider.v1.RenewLeaseRequest.class,
      responseType = dev.outrider.v1.RenewLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RenewLeaseRequest,
      dev.outrider.v1.RenewLeaseResponse> getRenewLeaseMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RenewLeaseRequest, dev.outrider.v1.RenewLeaseResponse> getRenewLeaseMethod;
    if ((getRenewLeaseMethod = SafeguardServiceGrpc.getRenewLeaseMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getRenewLeaseMethod = SafeguardServiceGrpc.getRenewLeaseMethod) == null) {
          SafeguardServiceGrpc.getRenewLeaseMethod = getRenewLeaseMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RenewLeaseRequest, dev.outrider.v1.RenewLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RenewLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RenewLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RenewLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("RenewLease"))
              .build();
        }
      }
    }
    return getRenewLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReleaseLeaseRequest,
      dev.outrider.v1.ReleaseLeaseResponse> getReleaseLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReleaseLease",
      requestType = dev.outrider.v1.ReleaseLeaseRequest.class,
      responseType = dev.outrider.v1.ReleaseLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReleaseLeaseRequest,
      dev.outrider.v1.ReleaseLeaseResponse> getReleaseLeaseMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReleaseLeaseRequest, dev.outrider.v1.ReleaseLeaseResponse> getReleaseLeaseMethod;
    if ((getReleaseLeaseMethod = SafeguardServiceGrpc.getReleaseLeaseMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getReleaseLeaseMethod = SafeguardServiceGrpc.getReleaseLeaseMethod) == null) {
          SafeguardServiceGrpc.getReleaseLeaseMethod = getReleaseLeaseMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReleaseLeaseRequest, dev.outrider.v1.ReleaseLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReleaseLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReleaseLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReleaseLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ReleaseLease"))
              .build();
        }
      }
    }
    return getReleaseLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetLeaseRequest,
      dev.outrider.v1.GetLeaseResponse> getGetLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetLease",
      requestType = dev.outrider.v1.GetLeaseRequest.class,
      responseType = dev.outrider.v1.GetLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetLeaseRequest,
      dev.outrider.v1.GetLeaseResponse> getGetLeaseMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetLeaseRequest, dev.outrider.v1.GetLeaseResponse> getGetLeaseMethod;
    if ((getGetLeaseMethod = SafeguardServiceGrpc.getGetLeaseMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getGetLeaseMethod = SafeguardServiceGrpc.getGetLeaseMethod) == null) {
          SafeguardServiceGrpc.getGetLeaseMethod = getGetLeaseMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetLeaseRequest, dev.outrider.v1.GetLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("GetLease"))
              .build();
        }
      }
    }
    return getGetLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListLeasesRequest,
      dev.outrider.v1.ListLeasesResponse> getListLeasesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListLeases",
      requestType = dev.outrider.v1.ListLeasesRequest.class,
      responseType = dev.outrider.v1.ListLeasesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListLeasesRequest,
      dev.outrider.v1.ListLeasesResponse> getListLeasesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListLeasesRequest, dev.outrider.v1.ListLeasesResponse> getListLeasesMethod;
    if ((getListLeasesMethod = SafeguardServiceGrpc.getListLeasesMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getListLeasesMethod = SafeguardServiceGrpc.getListLeasesMethod) == null) {
          SafeguardServiceGrpc.getListLeasesMethod = getListLeasesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListLeasesRequest, dev.outrider.v1.ListLeasesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListLeases"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListLeasesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListLeasesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ListLeases"))
              .build();
        }
      }
    }
    return getListLeasesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AssessReversibilityRequest,
      dev.outrider.v1.AssessReversibilityResponse> getAssessReversibilityMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AssessReversibility",
      requestType = dev.outrider.v1.AssessReversibilityRequest.class,
      responseType = dev.outrider.v1.AssessReversibilityResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AssessReversibilityRequest,
      dev.outrider.v1.AssessReversibilityResponse> getAssessReversibilityMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AssessReversibilityRequest, dev.outrider.v1.AssessReversibilityResponse> getAssessReversibilityMethod;
    if ((getAssessReversibilityMethod = SafeguardServiceGrpc.getAssessReversibilityMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getAssessReversibilityMethod = SafeguardServiceGrpc.getAssessReversibilityMethod) == null) {
          SafeguardServiceGrpc.getAssessReversibilityMethod = getAssessReversibilityMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AssessReversibilityRequest, dev.outrider.v1.AssessReversibilityResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AssessReversibility"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AssessReversibilityRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AssessReversibilityResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("AssessReversibility"))
              .build();
        }
      }
    }
    return getAssessReversibilityMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListReversibilityRulesRequest,
      dev.outrider.v1.ListReversibilityRulesResponse> getListReversibilityRulesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListReversibilityRules",
      requestType = dev.outrider.v1.ListReversibilityRulesRequest.class,
      responseType = dev.outrider.v1.ListReversibilityRulesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListReversibilityRulesRequest,
      dev.outrider.v1.ListReversibilityRulesResponse> getListReversibilityRulesMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListReversibilityRulesRequest, dev.outrider.v1.ListReversibilityRulesResponse> getListReversibilityRulesMethod;
    if ((getListReversibilityRulesMethod = SafeguardServiceGrpc.getListReversibilityRulesMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getListReversibilityRulesMethod = SafeguardServiceGrpc.getListReversibilityRulesMethod) == null) {
          SafeguardServiceGrpc.getListReversibilityRulesMethod = getListReversibilityRulesMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListReversibilityRulesRequest, dev.outrider.v1.ListReversibilityRulesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListReversibilityRules"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListReversibilityRulesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListReversibilityRulesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ListReversibilityRules"))
              .build();
        }
      }
    }
    return getListReversibilityRulesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ValidatePlanRequest,
      dev.outrider.v1.ValidatePlanResponse> getValidatePlanMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ValidatePlan",
      requestType = dev.outrider.v1.ValidatePlanRequest.class,
      responseType = dev.outrider.v1.ValidatePlanResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ValidatePlanRequest,
      dev.outrider.v1.ValidatePlanResponse> getValidatePlanMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ValidatePlanRequest, dev.outrider.v1.ValidatePlanResponse> getValidatePlanMethod;
    if ((getValidatePlanMethod = SafeguardServiceGrpc.getValidatePlanMethod) == null) {
      synchronized (SafeguardServiceGrpc.class) {
        if ((getValidatePlanMethod = SafeguardServiceGrpc.getValidatePlanMethod) == null) {
          SafeguardServiceGrpc.getValidatePlanMethod = getValidatePlanMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ValidatePlanRequest, dev.outrider.v1.ValidatePlanResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ValidatePlan"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ValidatePlanRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ValidatePlanResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SafeguardServiceMethodDescriptorSupplier("ValidatePlan"))
              .build();
        }
      }
    }
    return getValidatePlanMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static SafeguardServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceStub>() {
        @java.lang.Override
        public SafeguardServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SafeguardServiceStub(channel, callOptions);
        }
      };
    return SafeguardServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static SafeguardServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceBlockingV2Stub>() {
        @java.lang.Override
        public SafeguardServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SafeguardServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return SafeguardServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static SafeguardServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceBlockingStub>() {
        @java.lang.Override
        public SafeguardServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SafeguardServiceBlockingStub(channel, callOptions);
        }
      };
    return SafeguardServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static SafeguardServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SafeguardServiceFutureStub>() {
        @java.lang.Override
        public SafeguardServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SafeguardServiceFutureStub(channel, callOptions);
        }
      };
    return SafeguardServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Circuit breakers. One breaker per key: an agent id, or
     * `agent_id:&lt;dependency&gt;`; created on first use with the configuration the
     * policy file gives the key (or the defaults).
     * Asks to run one guarded call. Permitted in CLOSED, and in HALF_OPEN while
     * fewer than half_open_max_calls probes are in flight (an OPEN breaker
     * whose recovery_timeout has passed becomes HALF_OPEN here too). Refused
     * otherwise (OPEN, or HALF_OPEN with every probe slot taken): `directive`
     * (DEGRADE or FAIL_FAST) and `degradation` say what the caller gets
     * instead, without running the call. A permitted call must be
     * settled by ReportOutcome(s) or ReleasePermit; unsettled it expires after
     * permit_ttl and counts as a failure. The `breaker` guardrail of
     * SupervisorService.CheckAction takes the same permits. A retry with the
     * same request_id returns the same permit.
     * INVALID_ARGUMENT: empty key, key over 256 characters.
     * </pre>
     */
    default void acquirePermit(dev.outrider.v1.AcquirePermitRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AcquirePermitResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAcquirePermitMethod(), responseObserver);
    }

    /**
     * <pre>
     * Settles a permit with the call's outcome and answers what the client
     * does, as the SupervisorAgent library: a success resets the failure count, closes the
     * circuit and answers RETURN_RESULT (with CACHED, its result is stored as
     * the key's cached value); a failure below failure_threshold answers
     * RETHROW; the failure that reaches it (or any failure of a HALF_OPEN
     * probe) opens the circuit and answers DEGRADE or FAIL_FAST. Idempotent per
     * permit: a repeat with the same outcome returns the first answer. An
     * outcome of an older generation, or of an expired or released permit, is
     * not counted (counted=false; RETURN_RESULT or RETHROW).
     * INVALID_ARGUMENT: empty permit_id, outcome UNSPECIFIED, result over the
     * size limit. NOT_FOUND: unknown permit id. FAILED_PRECONDITION: the permit
     * was already reported with the other outcome.
     * </pre>
     */
    default void reportOutcome(dev.outrider.v1.ReportOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReportOutcomeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Fire-and-forget outcomes: each message is applied in order as
     * ReportOutcome; the answer comes when the client closes its side. The
     * client applies the `failure_directive` it got with each permit.
     * Unknown permits are counted, not fatal.
     * INVALID_ARGUMENT (ends the stream; earlier messages stay applied): empty
     * permit_id or outcome UNSPECIFIED.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomesRequest> reportOutcomes(
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomesResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getReportOutcomesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gives a permit back without an outcome (the call did not run); nothing is
     * counted and a HALF_OPEN probe slot is freed. released=false when it was
     * already settled or expired. NOT_FOUND: unknown permit id.
     * </pre>
     */
    default void releasePermit(dev.outrider.v1.ReleasePermitRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReleasePermitResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleasePermitMethod(), responseObserver);
    }

    /**
     * <pre>
     * One breaker: state, failure count, generation, configuration.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    default void getBreaker(dev.outrider.v1.GetBreakerRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetBreakerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetBreakerMethod(), responseObserver);
    }

    /**
     * <pre>
     * Breakers ordered by key, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listBreakers(dev.outrider.v1.ListBreakersRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListBreakersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListBreakersMethod(), responseObserver);
    }

    /**
     * <pre>
     * Back to CLOSED with failure count 0, ending any forced hold; the cached
     * value stays. Emits a state change when the state changed. Operator only.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    default void resetBreaker(dev.outrider.v1.ResetBreakerRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ResetBreakerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResetBreakerMethod(), responseObserver);
    }

    /**
     * <pre>
     * Opens the circuit and holds it open (no HALF_OPEN by timer) until
     * ResetBreaker or ForceClose. Creates the breaker if needed. Reports a
     * failure to the cascade detector like any opening. Operator only.
     * INVALID_ARGUMENT: empty key.
     * </pre>
     */
    default void forceOpen(dev.outrider.v1.ForceOpenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ForceOpenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getForceOpenMethod(), responseObserver);
    }

    /**
     * <pre>
     * Closes the circuit with failure count 0 and holds it closed (failures are
     * counted but do not open it) until ResetBreaker or ForceOpen. Creates the
     * breaker if needed. Operator only. INVALID_ARGUMENT: empty key.
     * </pre>
     */
    default void forceClose(dev.outrider.v1.ForceCloseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ForceCloseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getForceCloseMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets one key's configuration (persisted; creates the breaker if needed).
     * New thresholds apply from the next event; state and counts stay.
     * Operator only: an agent raising its own threshold would hold its breaker
     * closed. INVALID_ARGUMENT: empty key, negative thresholds or durations.
     * </pre>
     */
    default void setBreakerConfig(dev.outrider.v1.SetBreakerConfigRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetBreakerConfigResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetBreakerConfigMethod(), responseObserver);
    }

    /**
     * <pre>
     * Token budgets (the SupervisorAgent library's TokenBudget, the Agent
     * Governance Toolkit's context budget signals).
     * Counts are exact under concurrency and survive restarts. Amounts are
     * tokens; a request "fits" when the agent's remaining and the global
     * remaining both cover it, or, when only the global pool is short, when it
     * is at most the minimum context size of the agent's priority.
     * Sets the agent's allocation and priority. Allocating again replaces it,
     * restarts the agent's count from zero and cancels its open reservations.
     * Sends SIGRESUME when the agent was stopped and now has room.
     * Operator only. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    default void allocate(dev.outrider.v1.AllocateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AllocateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAllocateMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds to the agent's and the global count. Never refuses: usage beyond
     * the budget is recorded (over_budget), with a warning from 90% usage.
     * Crossing 90% sends SIGWARN (once per crossing), reaching the allocation
     * sends SIGSTOP. A retry with the same request_id is not counted twice.
     * INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0. FAILED_PRECONDITION: the
     * agent has no allocation.
     * </pre>
     */
    default void consume(dev.outrider.v1.ConsumeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ConsumeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getConsumeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Whether `tokens` fit now (agent and global both have room; see the
     * priority rule above). False, not an error, for an agent without an
     * allocation. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    default void canConsume(dev.outrider.v1.CanConsumeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CanConsumeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCanConsumeMethod(), responseObserver);
    }

    /**
     * <pre>
     * The agent's remaining tokens; 0 without an allocation (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    default void remaining(dev.outrider.v1.RemainingRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemainingResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemainingMethod(), responseObserver);
    }

    /**
     * <pre>
     * The global budget's remaining tokens.
     * </pre>
     */
    default void globalRemaining(dev.outrider.v1.GlobalRemainingRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalRemainingResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGlobalRemainingMethod(), responseObserver);
    }

    /**
     * <pre>
     * The agent's used / allocated * 100; 0 without an allocation.
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    default void usagePercent(dev.outrider.v1.UsagePercentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.UsagePercentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUsagePercentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The global budget's used / total * 100.
     * </pre>
     */
    default void globalUsagePercent(dev.outrider.v1.GlobalUsagePercentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalUsagePercentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGlobalUsagePercentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The agent's allocation with its counts. NOT_FOUND: no allocation.
     * </pre>
     */
    default void getAllocation(dev.outrider.v1.GetAllocationRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAllocationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAllocationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Every allocation ordered by agent id, and the global budget (the source's
     * allAllocations). Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listAllocations(dev.outrider.v1.ListAllocationsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAllocationsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAllocationsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets the global budget's total; its used count stays. Operator only.
     * INVALID_ARGUMENT: tokens &lt;= 0.
     * </pre>
     */
    default void setGlobalBudget(dev.outrider.v1.SetGlobalBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetGlobalBudgetResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetGlobalBudgetMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets aside `estimate` tokens for one call, so concurrent calls cannot
     * overspend together. granted=false (not an error) when it does not fit.
     * The reservation returns its tokens when settled or when it expires.
     * INVALID_ARGUMENT: empty agent_id, estimate &lt;= 0, non-positive ttl.
     * FAILED_PRECONDITION: the agent has no allocation.
     * </pre>
     */
    default void reserve(dev.outrider.v1.ReserveRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReserveResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReserveMethod(), responseObserver);
    }

    /**
     * <pre>
     * Ends a reservation and consumes `actual` tokens (may differ from the
     * estimate; 0 when the call used none), with Consume's warnings and
     * signals; a settle that brings room back after SIGSTOP sends SIGRESUME.
     * A reservation that expired or was cancelled by a re-allocation holds no
     * tokens any more, but settling it still records `actual`. A repeat with
     * the same actual returns the first answer.
     * INVALID_ARGUMENT: empty reservation_id, actual &lt; 0. NOT_FOUND: unknown
     * reservation. FAILED_PRECONDITION: already settled with another actual.
     * </pre>
     */
    default void settle(dev.outrider.v1.SettleRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SettleResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSettleMethod(), responseObserver);
    }

    /**
     * <pre>
     * Episodic memory (the SupervisorAgent library). A bounded, durable log (max_episodes
     * configurable): when full, recording drops the oldest episode. Queries
     * return the most recently recorded episodes first, up to `limit`.
     * Appends an episode. INVALID_ARGUMENT: empty agent_id, metadata over the
     * size limit.
     * </pre>
     */
    default void recordEpisode(dev.outrider.v1.RecordEpisodeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RecordEpisodeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecordEpisodeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Episodes whose task_type contains the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    default void querySimilar(dev.outrider.v1.QuerySimilarRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QuerySimilarResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getQuerySimilarMethod(), responseObserver);
    }

    /**
     * <pre>
     * Episodes of one agent. INVALID_ARGUMENT: empty agent_id, negative limit.
     * </pre>
     */
    default void queryByAgent(dev.outrider.v1.QueryByAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getQueryByAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Episodes whose outcome equals the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    default void queryByOutcome(dev.outrider.v1.QueryByOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByOutcomeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getQueryByOutcomeMethod(), responseObserver);
    }

    /**
     * <pre>
     * Execution leases (the SandboxExecutionGuard contract).
     * Takes one execution slot of the key, waiting (FIFO among waiters) until
     * one is free. Slots per key are configured (default 1; the "noop" policy
     * grants at once, unlimited). The lease holds its slot until released,
     * expired (not renewed within ttl; reaped by the scheduler, the slot goes
     * to the next waiter) or revoked (its agent was killed). A retry with the
     * same request_id returns the lease granted to the first call.
     * INVALID_ARGUMENT: scope UNSPECIFIED, empty id for a non-GLOBAL scope,
     * empty agent_id, non-positive ttl. DEADLINE_EXCEEDED / CANCELLED: the
     * caller's deadline passed or it cancelled while waiting (it leaves the
     * queue).
     * </pre>
     */
    default void acquireLease(dev.outrider.v1.AcquireLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AcquireLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAcquireLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * Extends an active lease to now + ttl; the fencing token is unchanged.
     * INVALID_ARGUMENT: non-positive ttl. NOT_FOUND: unknown lease.
     * FAILED_PRECONDITION: the lease is no longer ACTIVE (the holder lost its
     * slot; the message says whether it expired, was released or revoked).
     * </pre>
     */
    default void renewLease(dev.outrider.v1.RenewLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RenewLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRenewLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * Gives the slot back. Idempotent: the answer is the lease in its final
     * state, RELEASED, or EXPIRED / REVOKED when it had ended before (the
     * holder ran without its slot for a while). NOT_FOUND: unknown lease.
     * </pre>
     */
    default void releaseLease(dev.outrider.v1.ReleaseLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReleaseLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleaseLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * One lease. NOT_FOUND: unknown lease.
     * </pre>
     */
    default void getLease(dev.outrider.v1.GetLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * Leases with filters, newest first. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listLeases(dev.outrider.v1.ListLeasesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListLeasesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListLeasesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reversibility and plans (the Agent Governance Toolkit).
     * The reversibility of an action: level, reason, compensating actions,
     * requires_extra_approval. From the built-in map (at least write_file,
     * create_file, delete_file, database_write, drop_table, send_email, deploy,
     * execute_code) as extended by the policy file; an action in neither is
     * UNKNOWN and requires extra approval. INVALID_ARGUMENT: empty action.
     * </pre>
     */
    default void assessReversibility(dev.outrider.v1.AssessReversibilityRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AssessReversibilityResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAssessReversibilityMethod(), responseObserver);
    }

    /**
     * <pre>
     * The reversibility map in effect (policy rules first, then built-ins),
     * ordered by action. Paginated.
     * </pre>
     */
    default void listReversibilityRules(dev.outrider.v1.ListReversibilityRulesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListReversibilityRulesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListReversibilityRulesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Checks a plan against a capability set: every step has a unique step id
     * and an action in the capabilities, every dependency exists, and there is
     * no cycle. Returns every violation, not only the first (valid=false is
     * data). INVALID_ARGUMENT: plan over the size limit. NOT_FOUND: agent_id
     * given and unknown.
     * </pre>
     */
    default void validatePlan(dev.outrider.v1.ValidatePlanRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ValidatePlanResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getValidatePlanMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service SafeguardService.
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public static abstract class SafeguardServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return SafeguardServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service SafeguardService.
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public static final class SafeguardServiceStub
      extends io.grpc.stub.AbstractAsyncStub<SafeguardServiceStub> {
    private SafeguardServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SafeguardServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SafeguardServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Circuit breakers. One breaker per key: an agent id, or
     * `agent_id:&lt;dependency&gt;`; created on first use with the configuration the
     * policy file gives the key (or the defaults).
     * Asks to run one guarded call. Permitted in CLOSED, and in HALF_OPEN while
     * fewer than half_open_max_calls probes are in flight (an OPEN breaker
     * whose recovery_timeout has passed becomes HALF_OPEN here too). Refused
     * otherwise (OPEN, or HALF_OPEN with every probe slot taken): `directive`
     * (DEGRADE or FAIL_FAST) and `degradation` say what the caller gets
     * instead, without running the call. A permitted call must be
     * settled by ReportOutcome(s) or ReleasePermit; unsettled it expires after
     * permit_ttl and counts as a failure. The `breaker` guardrail of
     * SupervisorService.CheckAction takes the same permits. A retry with the
     * same request_id returns the same permit.
     * INVALID_ARGUMENT: empty key, key over 256 characters.
     * </pre>
     */
    public void acquirePermit(dev.outrider.v1.AcquirePermitRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AcquirePermitResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAcquirePermitMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Settles a permit with the call's outcome and answers what the client
     * does, as the SupervisorAgent library: a success resets the failure count, closes the
     * circuit and answers RETURN_RESULT (with CACHED, its result is stored as
     * the key's cached value); a failure below failure_threshold answers
     * RETHROW; the failure that reaches it (or any failure of a HALF_OPEN
     * probe) opens the circuit and answers DEGRADE or FAIL_FAST. Idempotent per
     * permit: a repeat with the same outcome returns the first answer. An
     * outcome of an older generation, or of an expired or released permit, is
     * not counted (counted=false; RETURN_RESULT or RETHROW).
     * INVALID_ARGUMENT: empty permit_id, outcome UNSPECIFIED, result over the
     * size limit. NOT_FOUND: unknown permit id. FAILED_PRECONDITION: the permit
     * was already reported with the other outcome.
     * </pre>
     */
    public void reportOutcome(dev.outrider.v1.ReportOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReportOutcomeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Fire-and-forget outcomes: each message is applied in order as
     * ReportOutcome; the answer comes when the client closes its side. The
     * client applies the `failure_directive` it got with each permit.
     * Unknown permits are counted, not fatal.
     * INVALID_ARGUMENT (ends the stream; earlier messages stay applied): empty
     * permit_id or outcome UNSPECIFIED.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomesRequest> reportOutcomes(
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomesResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncClientStreamingCall(
          getChannel().newCall(getReportOutcomesMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Gives a permit back without an outcome (the call did not run); nothing is
     * counted and a HALF_OPEN probe slot is freed. released=false when it was
     * already settled or expired. NOT_FOUND: unknown permit id.
     * </pre>
     */
    public void releasePermit(dev.outrider.v1.ReleasePermitRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReleasePermitResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleasePermitMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One breaker: state, failure count, generation, configuration.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public void getBreaker(dev.outrider.v1.GetBreakerRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetBreakerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetBreakerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Breakers ordered by key, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listBreakers(dev.outrider.v1.ListBreakersRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListBreakersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListBreakersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Back to CLOSED with failure count 0, ending any forced hold; the cached
     * value stays. Emits a state change when the state changed. Operator only.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public void resetBreaker(dev.outrider.v1.ResetBreakerRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ResetBreakerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResetBreakerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Opens the circuit and holds it open (no HALF_OPEN by timer) until
     * ResetBreaker or ForceClose. Creates the breaker if needed. Reports a
     * failure to the cascade detector like any opening. Operator only.
     * INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public void forceOpen(dev.outrider.v1.ForceOpenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ForceOpenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getForceOpenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Closes the circuit with failure count 0 and holds it closed (failures are
     * counted but do not open it) until ResetBreaker or ForceOpen. Creates the
     * breaker if needed. Operator only. INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public void forceClose(dev.outrider.v1.ForceCloseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ForceCloseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getForceCloseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets one key's configuration (persisted; creates the breaker if needed).
     * New thresholds apply from the next event; state and counts stay.
     * Operator only: an agent raising its own threshold would hold its breaker
     * closed. INVALID_ARGUMENT: empty key, negative thresholds or durations.
     * </pre>
     */
    public void setBreakerConfig(dev.outrider.v1.SetBreakerConfigRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetBreakerConfigResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetBreakerConfigMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Token budgets (the SupervisorAgent library's TokenBudget, the Agent
     * Governance Toolkit's context budget signals).
     * Counts are exact under concurrency and survive restarts. Amounts are
     * tokens; a request "fits" when the agent's remaining and the global
     * remaining both cover it, or, when only the global pool is short, when it
     * is at most the minimum context size of the agent's priority.
     * Sets the agent's allocation and priority. Allocating again replaces it,
     * restarts the agent's count from zero and cancels its open reservations.
     * Sends SIGRESUME when the agent was stopped and now has room.
     * Operator only. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public void allocate(dev.outrider.v1.AllocateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AllocateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAllocateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds to the agent's and the global count. Never refuses: usage beyond
     * the budget is recorded (over_budget), with a warning from 90% usage.
     * Crossing 90% sends SIGWARN (once per crossing), reaching the allocation
     * sends SIGSTOP. A retry with the same request_id is not counted twice.
     * INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0. FAILED_PRECONDITION: the
     * agent has no allocation.
     * </pre>
     */
    public void consume(dev.outrider.v1.ConsumeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ConsumeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getConsumeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Whether `tokens` fit now (agent and global both have room; see the
     * priority rule above). False, not an error, for an agent without an
     * allocation. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public void canConsume(dev.outrider.v1.CanConsumeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CanConsumeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCanConsumeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The agent's remaining tokens; 0 without an allocation (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public void remaining(dev.outrider.v1.RemainingRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemainingResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemainingMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The global budget's remaining tokens.
     * </pre>
     */
    public void globalRemaining(dev.outrider.v1.GlobalRemainingRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalRemainingResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGlobalRemainingMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The agent's used / allocated * 100; 0 without an allocation.
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public void usagePercent(dev.outrider.v1.UsagePercentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.UsagePercentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUsagePercentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The global budget's used / total * 100.
     * </pre>
     */
    public void globalUsagePercent(dev.outrider.v1.GlobalUsagePercentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalUsagePercentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGlobalUsagePercentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The agent's allocation with its counts. NOT_FOUND: no allocation.
     * </pre>
     */
    public void getAllocation(dev.outrider.v1.GetAllocationRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAllocationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAllocationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Every allocation ordered by agent id, and the global budget (the source's
     * allAllocations). Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listAllocations(dev.outrider.v1.ListAllocationsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAllocationsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAllocationsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets the global budget's total; its used count stays. Operator only.
     * INVALID_ARGUMENT: tokens &lt;= 0.
     * </pre>
     */
    public void setGlobalBudget(dev.outrider.v1.SetGlobalBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SetGlobalBudgetResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetGlobalBudgetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets aside `estimate` tokens for one call, so concurrent calls cannot
     * overspend together. granted=false (not an error) when it does not fit.
     * The reservation returns its tokens when settled or when it expires.
     * INVALID_ARGUMENT: empty agent_id, estimate &lt;= 0, non-positive ttl.
     * FAILED_PRECONDITION: the agent has no allocation.
     * </pre>
     */
    public void reserve(dev.outrider.v1.ReserveRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReserveResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReserveMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Ends a reservation and consumes `actual` tokens (may differ from the
     * estimate; 0 when the call used none), with Consume's warnings and
     * signals; a settle that brings room back after SIGSTOP sends SIGRESUME.
     * A reservation that expired or was cancelled by a re-allocation holds no
     * tokens any more, but settling it still records `actual`. A repeat with
     * the same actual returns the first answer.
     * INVALID_ARGUMENT: empty reservation_id, actual &lt; 0. NOT_FOUND: unknown
     * reservation. FAILED_PRECONDITION: already settled with another actual.
     * </pre>
     */
    public void settle(dev.outrider.v1.SettleRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.SettleResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSettleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Episodic memory (the SupervisorAgent library). A bounded, durable log (max_episodes
     * configurable): when full, recording drops the oldest episode. Queries
     * return the most recently recorded episodes first, up to `limit`.
     * Appends an episode. INVALID_ARGUMENT: empty agent_id, metadata over the
     * size limit.
     * </pre>
     */
    public void recordEpisode(dev.outrider.v1.RecordEpisodeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RecordEpisodeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecordEpisodeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Episodes whose task_type contains the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public void querySimilar(dev.outrider.v1.QuerySimilarRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QuerySimilarResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getQuerySimilarMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Episodes of one agent. INVALID_ARGUMENT: empty agent_id, negative limit.
     * </pre>
     */
    public void queryByAgent(dev.outrider.v1.QueryByAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getQueryByAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Episodes whose outcome equals the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public void queryByOutcome(dev.outrider.v1.QueryByOutcomeRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByOutcomeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getQueryByOutcomeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Execution leases (the SandboxExecutionGuard contract).
     * Takes one execution slot of the key, waiting (FIFO among waiters) until
     * one is free. Slots per key are configured (default 1; the "noop" policy
     * grants at once, unlimited). The lease holds its slot until released,
     * expired (not renewed within ttl; reaped by the scheduler, the slot goes
     * to the next waiter) or revoked (its agent was killed). A retry with the
     * same request_id returns the lease granted to the first call.
     * INVALID_ARGUMENT: scope UNSPECIFIED, empty id for a non-GLOBAL scope,
     * empty agent_id, non-positive ttl. DEADLINE_EXCEEDED / CANCELLED: the
     * caller's deadline passed or it cancelled while waiting (it leaves the
     * queue).
     * </pre>
     */
    public void acquireLease(dev.outrider.v1.AcquireLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AcquireLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAcquireLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Extends an active lease to now + ttl; the fencing token is unchanged.
     * INVALID_ARGUMENT: non-positive ttl. NOT_FOUND: unknown lease.
     * FAILED_PRECONDITION: the lease is no longer ACTIVE (the holder lost its
     * slot; the message says whether it expired, was released or revoked).
     * </pre>
     */
    public void renewLease(dev.outrider.v1.RenewLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RenewLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRenewLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Gives the slot back. Idempotent: the answer is the lease in its final
     * state, RELEASED, or EXPIRED / REVOKED when it had ended before (the
     * holder ran without its slot for a while). NOT_FOUND: unknown lease.
     * </pre>
     */
    public void releaseLease(dev.outrider.v1.ReleaseLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReleaseLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleaseLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One lease. NOT_FOUND: unknown lease.
     * </pre>
     */
    public void getLease(dev.outrider.v1.GetLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Leases with filters, newest first. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listLeases(dev.outrider.v1.ListLeasesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListLeasesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListLeasesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reversibility and plans (the Agent Governance Toolkit).
     * The reversibility of an action: level, reason, compensating actions,
     * requires_extra_approval. From the built-in map (at least write_file,
     * create_file, delete_file, database_write, drop_table, send_email, deploy,
     * execute_code) as extended by the policy file; an action in neither is
     * UNKNOWN and requires extra approval. INVALID_ARGUMENT: empty action.
     * </pre>
     */
    public void assessReversibility(dev.outrider.v1.AssessReversibilityRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AssessReversibilityResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAssessReversibilityMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The reversibility map in effect (policy rules first, then built-ins),
     * ordered by action. Paginated.
     * </pre>
     */
    public void listReversibilityRules(dev.outrider.v1.ListReversibilityRulesRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListReversibilityRulesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListReversibilityRulesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Checks a plan against a capability set: every step has a unique step id
     * and an action in the capabilities, every dependency exists, and there is
     * no cycle. Returns every violation, not only the first (valid=false is
     * data). INVALID_ARGUMENT: plan over the size limit. NOT_FOUND: agent_id
     * given and unknown.
     * </pre>
     */
    public void validatePlan(dev.outrider.v1.ValidatePlanRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ValidatePlanResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getValidatePlanMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service SafeguardService.
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public static final class SafeguardServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<SafeguardServiceBlockingV2Stub> {
    private SafeguardServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SafeguardServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SafeguardServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Circuit breakers. One breaker per key: an agent id, or
     * `agent_id:&lt;dependency&gt;`; created on first use with the configuration the
     * policy file gives the key (or the defaults).
     * Asks to run one guarded call. Permitted in CLOSED, and in HALF_OPEN while
     * fewer than half_open_max_calls probes are in flight (an OPEN breaker
     * whose recovery_timeout has passed becomes HALF_OPEN here too). Refused
     * otherwise (OPEN, or HALF_OPEN with every probe slot taken): `directive`
     * (DEGRADE or FAIL_FAST) and `degradation` say what the caller gets
     * instead, without running the call. A permitted call must be
     * settled by ReportOutcome(s) or ReleasePermit; unsettled it expires after
     * permit_ttl and counts as a failure. The `breaker` guardrail of
     * SupervisorService.CheckAction takes the same permits. A retry with the
     * same request_id returns the same permit.
     * INVALID_ARGUMENT: empty key, key over 256 characters.
     * </pre>
     */
    public dev.outrider.v1.AcquirePermitResponse acquirePermit(dev.outrider.v1.AcquirePermitRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAcquirePermitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Settles a permit with the call's outcome and answers what the client
     * does, as the SupervisorAgent library: a success resets the failure count, closes the
     * circuit and answers RETURN_RESULT (with CACHED, its result is stored as
     * the key's cached value); a failure below failure_threshold answers
     * RETHROW; the failure that reaches it (or any failure of a HALF_OPEN
     * probe) opens the circuit and answers DEGRADE or FAIL_FAST. Idempotent per
     * permit: a repeat with the same outcome returns the first answer. An
     * outcome of an older generation, or of an expired or released permit, is
     * not counted (counted=false; RETURN_RESULT or RETHROW).
     * INVALID_ARGUMENT: empty permit_id, outcome UNSPECIFIED, result over the
     * size limit. NOT_FOUND: unknown permit id. FAILED_PRECONDITION: the permit
     * was already reported with the other outcome.
     * </pre>
     */
    public dev.outrider.v1.ReportOutcomeResponse reportOutcome(dev.outrider.v1.ReportOutcomeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReportOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Fire-and-forget outcomes: each message is applied in order as
     * ReportOutcome; the answer comes when the client closes its side. The
     * client applies the `failure_directive` it got with each permit.
     * Unknown permits are counted, not fatal.
     * INVALID_ARGUMENT (ends the stream; earlier messages stay applied): empty
     * permit_id or outcome UNSPECIFIED.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.outrider.v1.ReportOutcomesRequest, dev.outrider.v1.ReportOutcomesResponse>
        reportOutcomes() {
      return io.grpc.stub.ClientCalls.blockingClientStreamingCall(
          getChannel(), getReportOutcomesMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Gives a permit back without an outcome (the call did not run); nothing is
     * counted and a HALF_OPEN probe slot is freed. released=false when it was
     * already settled or expired. NOT_FOUND: unknown permit id.
     * </pre>
     */
    public dev.outrider.v1.ReleasePermitResponse releasePermit(dev.outrider.v1.ReleasePermitRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReleasePermitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One breaker: state, failure count, generation, configuration.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public dev.outrider.v1.GetBreakerResponse getBreaker(dev.outrider.v1.GetBreakerRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetBreakerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Breakers ordered by key, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListBreakersResponse listBreakers(dev.outrider.v1.ListBreakersRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListBreakersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Back to CLOSED with failure count 0, ending any forced hold; the cached
     * value stays. Emits a state change when the state changed. Operator only.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public dev.outrider.v1.ResetBreakerResponse resetBreaker(dev.outrider.v1.ResetBreakerRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResetBreakerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Opens the circuit and holds it open (no HALF_OPEN by timer) until
     * ResetBreaker or ForceClose. Creates the breaker if needed. Reports a
     * failure to the cascade detector like any opening. Operator only.
     * INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public dev.outrider.v1.ForceOpenResponse forceOpen(dev.outrider.v1.ForceOpenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getForceOpenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Closes the circuit with failure count 0 and holds it closed (failures are
     * counted but do not open it) until ResetBreaker or ForceOpen. Creates the
     * breaker if needed. Operator only. INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public dev.outrider.v1.ForceCloseResponse forceClose(dev.outrider.v1.ForceCloseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getForceCloseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets one key's configuration (persisted; creates the breaker if needed).
     * New thresholds apply from the next event; state and counts stay.
     * Operator only: an agent raising its own threshold would hold its breaker
     * closed. INVALID_ARGUMENT: empty key, negative thresholds or durations.
     * </pre>
     */
    public dev.outrider.v1.SetBreakerConfigResponse setBreakerConfig(dev.outrider.v1.SetBreakerConfigRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetBreakerConfigMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Token budgets (the SupervisorAgent library's TokenBudget, the Agent
     * Governance Toolkit's context budget signals).
     * Counts are exact under concurrency and survive restarts. Amounts are
     * tokens; a request "fits" when the agent's remaining and the global
     * remaining both cover it, or, when only the global pool is short, when it
     * is at most the minimum context size of the agent's priority.
     * Sets the agent's allocation and priority. Allocating again replaces it,
     * restarts the agent's count from zero and cancels its open reservations.
     * Sends SIGRESUME when the agent was stopped and now has room.
     * Operator only. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.AllocateResponse allocate(dev.outrider.v1.AllocateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAllocateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds to the agent's and the global count. Never refuses: usage beyond
     * the budget is recorded (over_budget), with a warning from 90% usage.
     * Crossing 90% sends SIGWARN (once per crossing), reaching the allocation
     * sends SIGSTOP. A retry with the same request_id is not counted twice.
     * INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0. FAILED_PRECONDITION: the
     * agent has no allocation.
     * </pre>
     */
    public dev.outrider.v1.ConsumeResponse consume(dev.outrider.v1.ConsumeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getConsumeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Whether `tokens` fit now (agent and global both have room; see the
     * priority rule above). False, not an error, for an agent without an
     * allocation. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.CanConsumeResponse canConsume(dev.outrider.v1.CanConsumeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCanConsumeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's remaining tokens; 0 without an allocation (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.RemainingResponse remaining(dev.outrider.v1.RemainingRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemainingMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The global budget's remaining tokens.
     * </pre>
     */
    public dev.outrider.v1.GlobalRemainingResponse globalRemaining(dev.outrider.v1.GlobalRemainingRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGlobalRemainingMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's used / allocated * 100; 0 without an allocation.
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.UsagePercentResponse usagePercent(dev.outrider.v1.UsagePercentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUsagePercentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The global budget's used / total * 100.
     * </pre>
     */
    public dev.outrider.v1.GlobalUsagePercentResponse globalUsagePercent(dev.outrider.v1.GlobalUsagePercentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGlobalUsagePercentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's allocation with its counts. NOT_FOUND: no allocation.
     * </pre>
     */
    public dev.outrider.v1.GetAllocationResponse getAllocation(dev.outrider.v1.GetAllocationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAllocationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every allocation ordered by agent id, and the global budget (the source's
     * allAllocations). Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAllocationsResponse listAllocations(dev.outrider.v1.ListAllocationsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAllocationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets the global budget's total; its used count stays. Operator only.
     * INVALID_ARGUMENT: tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.SetGlobalBudgetResponse setGlobalBudget(dev.outrider.v1.SetGlobalBudgetRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetGlobalBudgetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets aside `estimate` tokens for one call, so concurrent calls cannot
     * overspend together. granted=false (not an error) when it does not fit.
     * The reservation returns its tokens when settled or when it expires.
     * INVALID_ARGUMENT: empty agent_id, estimate &lt;= 0, non-positive ttl.
     * FAILED_PRECONDITION: the agent has no allocation.
     * </pre>
     */
    public dev.outrider.v1.ReserveResponse reserve(dev.outrider.v1.ReserveRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReserveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Ends a reservation and consumes `actual` tokens (may differ from the
     * estimate; 0 when the call used none), with Consume's warnings and
     * signals; a settle that brings room back after SIGSTOP sends SIGRESUME.
     * A reservation that expired or was cancelled by a re-allocation holds no
     * tokens any more, but settling it still records `actual`. A repeat with
     * the same actual returns the first answer.
     * INVALID_ARGUMENT: empty reservation_id, actual &lt; 0. NOT_FOUND: unknown
     * reservation. FAILED_PRECONDITION: already settled with another actual.
     * </pre>
     */
    public dev.outrider.v1.SettleResponse settle(dev.outrider.v1.SettleRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSettleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodic memory (the SupervisorAgent library). A bounded, durable log (max_episodes
     * configurable): when full, recording drops the oldest episode. Queries
     * return the most recently recorded episodes first, up to `limit`.
     * Appends an episode. INVALID_ARGUMENT: empty agent_id, metadata over the
     * size limit.
     * </pre>
     */
    public dev.outrider.v1.RecordEpisodeResponse recordEpisode(dev.outrider.v1.RecordEpisodeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecordEpisodeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes whose task_type contains the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public dev.outrider.v1.QuerySimilarResponse querySimilar(dev.outrider.v1.QuerySimilarRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getQuerySimilarMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes of one agent. INVALID_ARGUMENT: empty agent_id, negative limit.
     * </pre>
     */
    public dev.outrider.v1.QueryByAgentResponse queryByAgent(dev.outrider.v1.QueryByAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getQueryByAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes whose outcome equals the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public dev.outrider.v1.QueryByOutcomeResponse queryByOutcome(dev.outrider.v1.QueryByOutcomeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getQueryByOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Execution leases (the SandboxExecutionGuard contract).
     * Takes one execution slot of the key, waiting (FIFO among waiters) until
     * one is free. Slots per key are configured (default 1; the "noop" policy
     * grants at once, unlimited). The lease holds its slot until released,
     * expired (not renewed within ttl; reaped by the scheduler, the slot goes
     * to the next waiter) or revoked (its agent was killed). A retry with the
     * same request_id returns the lease granted to the first call.
     * INVALID_ARGUMENT: scope UNSPECIFIED, empty id for a non-GLOBAL scope,
     * empty agent_id, non-positive ttl. DEADLINE_EXCEEDED / CANCELLED: the
     * caller's deadline passed or it cancelled while waiting (it leaves the
     * queue).
     * </pre>
     */
    public dev.outrider.v1.AcquireLeaseResponse acquireLease(dev.outrider.v1.AcquireLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAcquireLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extends an active lease to now + ttl; the fencing token is unchanged.
     * INVALID_ARGUMENT: non-positive ttl. NOT_FOUND: unknown lease.
     * FAILED_PRECONDITION: the lease is no longer ACTIVE (the holder lost its
     * slot; the message says whether it expired, was released or revoked).
     * </pre>
     */
    public dev.outrider.v1.RenewLeaseResponse renewLease(dev.outrider.v1.RenewLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRenewLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gives the slot back. Idempotent: the answer is the lease in its final
     * state, RELEASED, or EXPIRED / REVOKED when it had ended before (the
     * holder ran without its slot for a while). NOT_FOUND: unknown lease.
     * </pre>
     */
    public dev.outrider.v1.ReleaseLeaseResponse releaseLease(dev.outrider.v1.ReleaseLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReleaseLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One lease. NOT_FOUND: unknown lease.
     * </pre>
     */
    public dev.outrider.v1.GetLeaseResponse getLease(dev.outrider.v1.GetLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Leases with filters, newest first. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListLeasesResponse listLeases(dev.outrider.v1.ListLeasesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListLeasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reversibility and plans (the Agent Governance Toolkit).
     * The reversibility of an action: level, reason, compensating actions,
     * requires_extra_approval. From the built-in map (at least write_file,
     * create_file, delete_file, database_write, drop_table, send_email, deploy,
     * execute_code) as extended by the policy file; an action in neither is
     * UNKNOWN and requires extra approval. INVALID_ARGUMENT: empty action.
     * </pre>
     */
    public dev.outrider.v1.AssessReversibilityResponse assessReversibility(dev.outrider.v1.AssessReversibilityRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAssessReversibilityMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The reversibility map in effect (policy rules first, then built-ins),
     * ordered by action. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListReversibilityRulesResponse listReversibilityRules(dev.outrider.v1.ListReversibilityRulesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListReversibilityRulesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Checks a plan against a capability set: every step has a unique step id
     * and an action in the capabilities, every dependency exists, and there is
     * no cycle. Returns every violation, not only the first (valid=false is
     * data). INVALID_ARGUMENT: plan over the size limit. NOT_FOUND: agent_id
     * given and unknown.
     * </pre>
     */
    public dev.outrider.v1.ValidatePlanResponse validatePlan(dev.outrider.v1.ValidatePlanRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getValidatePlanMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service SafeguardService.
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public static final class SafeguardServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<SafeguardServiceBlockingStub> {
    private SafeguardServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SafeguardServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SafeguardServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Circuit breakers. One breaker per key: an agent id, or
     * `agent_id:&lt;dependency&gt;`; created on first use with the configuration the
     * policy file gives the key (or the defaults).
     * Asks to run one guarded call. Permitted in CLOSED, and in HALF_OPEN while
     * fewer than half_open_max_calls probes are in flight (an OPEN breaker
     * whose recovery_timeout has passed becomes HALF_OPEN here too). Refused
     * otherwise (OPEN, or HALF_OPEN with every probe slot taken): `directive`
     * (DEGRADE or FAIL_FAST) and `degradation` say what the caller gets
     * instead, without running the call. A permitted call must be
     * settled by ReportOutcome(s) or ReleasePermit; unsettled it expires after
     * permit_ttl and counts as a failure. The `breaker` guardrail of
     * SupervisorService.CheckAction takes the same permits. A retry with the
     * same request_id returns the same permit.
     * INVALID_ARGUMENT: empty key, key over 256 characters.
     * </pre>
     */
    public dev.outrider.v1.AcquirePermitResponse acquirePermit(dev.outrider.v1.AcquirePermitRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAcquirePermitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Settles a permit with the call's outcome and answers what the client
     * does, as the SupervisorAgent library: a success resets the failure count, closes the
     * circuit and answers RETURN_RESULT (with CACHED, its result is stored as
     * the key's cached value); a failure below failure_threshold answers
     * RETHROW; the failure that reaches it (or any failure of a HALF_OPEN
     * probe) opens the circuit and answers DEGRADE or FAIL_FAST. Idempotent per
     * permit: a repeat with the same outcome returns the first answer. An
     * outcome of an older generation, or of an expired or released permit, is
     * not counted (counted=false; RETURN_RESULT or RETHROW).
     * INVALID_ARGUMENT: empty permit_id, outcome UNSPECIFIED, result over the
     * size limit. NOT_FOUND: unknown permit id. FAILED_PRECONDITION: the permit
     * was already reported with the other outcome.
     * </pre>
     */
    public dev.outrider.v1.ReportOutcomeResponse reportOutcome(dev.outrider.v1.ReportOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReportOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gives a permit back without an outcome (the call did not run); nothing is
     * counted and a HALF_OPEN probe slot is freed. released=false when it was
     * already settled or expired. NOT_FOUND: unknown permit id.
     * </pre>
     */
    public dev.outrider.v1.ReleasePermitResponse releasePermit(dev.outrider.v1.ReleasePermitRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleasePermitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One breaker: state, failure count, generation, configuration.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public dev.outrider.v1.GetBreakerResponse getBreaker(dev.outrider.v1.GetBreakerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetBreakerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Breakers ordered by key, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListBreakersResponse listBreakers(dev.outrider.v1.ListBreakersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListBreakersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Back to CLOSED with failure count 0, ending any forced hold; the cached
     * value stays. Emits a state change when the state changed. Operator only.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public dev.outrider.v1.ResetBreakerResponse resetBreaker(dev.outrider.v1.ResetBreakerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResetBreakerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Opens the circuit and holds it open (no HALF_OPEN by timer) until
     * ResetBreaker or ForceClose. Creates the breaker if needed. Reports a
     * failure to the cascade detector like any opening. Operator only.
     * INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public dev.outrider.v1.ForceOpenResponse forceOpen(dev.outrider.v1.ForceOpenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getForceOpenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Closes the circuit with failure count 0 and holds it closed (failures are
     * counted but do not open it) until ResetBreaker or ForceOpen. Creates the
     * breaker if needed. Operator only. INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public dev.outrider.v1.ForceCloseResponse forceClose(dev.outrider.v1.ForceCloseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getForceCloseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets one key's configuration (persisted; creates the breaker if needed).
     * New thresholds apply from the next event; state and counts stay.
     * Operator only: an agent raising its own threshold would hold its breaker
     * closed. INVALID_ARGUMENT: empty key, negative thresholds or durations.
     * </pre>
     */
    public dev.outrider.v1.SetBreakerConfigResponse setBreakerConfig(dev.outrider.v1.SetBreakerConfigRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetBreakerConfigMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Token budgets (the SupervisorAgent library's TokenBudget, the Agent
     * Governance Toolkit's context budget signals).
     * Counts are exact under concurrency and survive restarts. Amounts are
     * tokens; a request "fits" when the agent's remaining and the global
     * remaining both cover it, or, when only the global pool is short, when it
     * is at most the minimum context size of the agent's priority.
     * Sets the agent's allocation and priority. Allocating again replaces it,
     * restarts the agent's count from zero and cancels its open reservations.
     * Sends SIGRESUME when the agent was stopped and now has room.
     * Operator only. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.AllocateResponse allocate(dev.outrider.v1.AllocateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAllocateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds to the agent's and the global count. Never refuses: usage beyond
     * the budget is recorded (over_budget), with a warning from 90% usage.
     * Crossing 90% sends SIGWARN (once per crossing), reaching the allocation
     * sends SIGSTOP. A retry with the same request_id is not counted twice.
     * INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0. FAILED_PRECONDITION: the
     * agent has no allocation.
     * </pre>
     */
    public dev.outrider.v1.ConsumeResponse consume(dev.outrider.v1.ConsumeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getConsumeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Whether `tokens` fit now (agent and global both have room; see the
     * priority rule above). False, not an error, for an agent without an
     * allocation. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.CanConsumeResponse canConsume(dev.outrider.v1.CanConsumeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCanConsumeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's remaining tokens; 0 without an allocation (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.RemainingResponse remaining(dev.outrider.v1.RemainingRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemainingMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The global budget's remaining tokens.
     * </pre>
     */
    public dev.outrider.v1.GlobalRemainingResponse globalRemaining(dev.outrider.v1.GlobalRemainingRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGlobalRemainingMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's used / allocated * 100; 0 without an allocation.
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public dev.outrider.v1.UsagePercentResponse usagePercent(dev.outrider.v1.UsagePercentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUsagePercentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The global budget's used / total * 100.
     * </pre>
     */
    public dev.outrider.v1.GlobalUsagePercentResponse globalUsagePercent(dev.outrider.v1.GlobalUsagePercentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGlobalUsagePercentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agent's allocation with its counts. NOT_FOUND: no allocation.
     * </pre>
     */
    public dev.outrider.v1.GetAllocationResponse getAllocation(dev.outrider.v1.GetAllocationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAllocationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every allocation ordered by agent id, and the global budget (the source's
     * allAllocations). Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAllocationsResponse listAllocations(dev.outrider.v1.ListAllocationsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAllocationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets the global budget's total; its used count stays. Operator only.
     * INVALID_ARGUMENT: tokens &lt;= 0.
     * </pre>
     */
    public dev.outrider.v1.SetGlobalBudgetResponse setGlobalBudget(dev.outrider.v1.SetGlobalBudgetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetGlobalBudgetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets aside `estimate` tokens for one call, so concurrent calls cannot
     * overspend together. granted=false (not an error) when it does not fit.
     * The reservation returns its tokens when settled or when it expires.
     * INVALID_ARGUMENT: empty agent_id, estimate &lt;= 0, non-positive ttl.
     * FAILED_PRECONDITION: the agent has no allocation.
     * </pre>
     */
    public dev.outrider.v1.ReserveResponse reserve(dev.outrider.v1.ReserveRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReserveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Ends a reservation and consumes `actual` tokens (may differ from the
     * estimate; 0 when the call used none), with Consume's warnings and
     * signals; a settle that brings room back after SIGSTOP sends SIGRESUME.
     * A reservation that expired or was cancelled by a re-allocation holds no
     * tokens any more, but settling it still records `actual`. A repeat with
     * the same actual returns the first answer.
     * INVALID_ARGUMENT: empty reservation_id, actual &lt; 0. NOT_FOUND: unknown
     * reservation. FAILED_PRECONDITION: already settled with another actual.
     * </pre>
     */
    public dev.outrider.v1.SettleResponse settle(dev.outrider.v1.SettleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSettleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodic memory (the SupervisorAgent library). A bounded, durable log (max_episodes
     * configurable): when full, recording drops the oldest episode. Queries
     * return the most recently recorded episodes first, up to `limit`.
     * Appends an episode. INVALID_ARGUMENT: empty agent_id, metadata over the
     * size limit.
     * </pre>
     */
    public dev.outrider.v1.RecordEpisodeResponse recordEpisode(dev.outrider.v1.RecordEpisodeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecordEpisodeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes whose task_type contains the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public dev.outrider.v1.QuerySimilarResponse querySimilar(dev.outrider.v1.QuerySimilarRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getQuerySimilarMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes of one agent. INVALID_ARGUMENT: empty agent_id, negative limit.
     * </pre>
     */
    public dev.outrider.v1.QueryByAgentResponse queryByAgent(dev.outrider.v1.QueryByAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getQueryByAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Episodes whose outcome equals the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public dev.outrider.v1.QueryByOutcomeResponse queryByOutcome(dev.outrider.v1.QueryByOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getQueryByOutcomeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Execution leases (the SandboxExecutionGuard contract).
     * Takes one execution slot of the key, waiting (FIFO among waiters) until
     * one is free. Slots per key are configured (default 1; the "noop" policy
     * grants at once, unlimited). The lease holds its slot until released,
     * expired (not renewed within ttl; reaped by the scheduler, the slot goes
     * to the next waiter) or revoked (its agent was killed). A retry with the
     * same request_id returns the lease granted to the first call.
     * INVALID_ARGUMENT: scope UNSPECIFIED, empty id for a non-GLOBAL scope,
     * empty agent_id, non-positive ttl. DEADLINE_EXCEEDED / CANCELLED: the
     * caller's deadline passed or it cancelled while waiting (it leaves the
     * queue).
     * </pre>
     */
    public dev.outrider.v1.AcquireLeaseResponse acquireLease(dev.outrider.v1.AcquireLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAcquireLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extends an active lease to now + ttl; the fencing token is unchanged.
     * INVALID_ARGUMENT: non-positive ttl. NOT_FOUND: unknown lease.
     * FAILED_PRECONDITION: the lease is no longer ACTIVE (the holder lost its
     * slot; the message says whether it expired, was released or revoked).
     * </pre>
     */
    public dev.outrider.v1.RenewLeaseResponse renewLease(dev.outrider.v1.RenewLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRenewLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Gives the slot back. Idempotent: the answer is the lease in its final
     * state, RELEASED, or EXPIRED / REVOKED when it had ended before (the
     * holder ran without its slot for a while). NOT_FOUND: unknown lease.
     * </pre>
     */
    public dev.outrider.v1.ReleaseLeaseResponse releaseLease(dev.outrider.v1.ReleaseLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleaseLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One lease. NOT_FOUND: unknown lease.
     * </pre>
     */
    public dev.outrider.v1.GetLeaseResponse getLease(dev.outrider.v1.GetLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Leases with filters, newest first. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListLeasesResponse listLeases(dev.outrider.v1.ListLeasesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListLeasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reversibility and plans (the Agent Governance Toolkit).
     * The reversibility of an action: level, reason, compensating actions,
     * requires_extra_approval. From the built-in map (at least write_file,
     * create_file, delete_file, database_write, drop_table, send_email, deploy,
     * execute_code) as extended by the policy file; an action in neither is
     * UNKNOWN and requires extra approval. INVALID_ARGUMENT: empty action.
     * </pre>
     */
    public dev.outrider.v1.AssessReversibilityResponse assessReversibility(dev.outrider.v1.AssessReversibilityRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAssessReversibilityMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The reversibility map in effect (policy rules first, then built-ins),
     * ordered by action. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListReversibilityRulesResponse listReversibilityRules(dev.outrider.v1.ListReversibilityRulesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListReversibilityRulesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Checks a plan against a capability set: every step has a unique step id
     * and an action in the capabilities, every dependency exists, and there is
     * no cycle. Returns every violation, not only the first (valid=false is
     * data). INVALID_ARGUMENT: plan over the size limit. NOT_FOUND: agent_id
     * given and unknown.
     * </pre>
     */
    public dev.outrider.v1.ValidatePlanResponse validatePlan(dev.outrider.v1.ValidatePlanRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getValidatePlanMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service SafeguardService.
   * <pre>
   * Production safeguards served to every agent from one place, durable:
   * circuit breakers (the SupervisorAgent library's FailureIsolator, the Agent
   * Governance Toolkit's CircuitBreaker), token budgets with context signals,
   * episodic memory, execution leases (the SandboxExecutionGuard contract),
   * reversibility assessment and plan validation (the Agent Governance
   * Toolkit). Each remote API is
   * shaped for a client that runs the real work itself.
   * A safeguard outcome (permit refused, budget short, plan violations) is
   * response data; a gRPC error means the sidecar could not answer. Errors carry
   * a google.rpc.ErrorInfo with domain "outrider.dev". Every RPC may also answer
   * UNAUTHENTICATED (missing or bad credential) and PERMISSION_DENIED (an RPC
   * marked "Operator only" called with an agent credential, or an agent
   * credential acting for another agent: breaker keys other than its agent id or
   * `agent_id:...`, another agent's budget, leases or episodes).
   * </pre>
   */
  public static final class SafeguardServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<SafeguardServiceFutureStub> {
    private SafeguardServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SafeguardServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SafeguardServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Circuit breakers. One breaker per key: an agent id, or
     * `agent_id:&lt;dependency&gt;`; created on first use with the configuration the
     * policy file gives the key (or the defaults).
     * Asks to run one guarded call. Permitted in CLOSED, and in HALF_OPEN while
     * fewer than half_open_max_calls probes are in flight (an OPEN breaker
     * whose recovery_timeout has passed becomes HALF_OPEN here too). Refused
     * otherwise (OPEN, or HALF_OPEN with every probe slot taken): `directive`
     * (DEGRADE or FAIL_FAST) and `degradation` say what the caller gets
     * instead, without running the call. A permitted call must be
     * settled by ReportOutcome(s) or ReleasePermit; unsettled it expires after
     * permit_ttl and counts as a failure. The `breaker` guardrail of
     * SupervisorService.CheckAction takes the same permits. A retry with the
     * same request_id returns the same permit.
     * INVALID_ARGUMENT: empty key, key over 256 characters.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AcquirePermitResponse> acquirePermit(
        dev.outrider.v1.AcquirePermitRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAcquirePermitMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Settles a permit with the call's outcome and answers what the client
     * does, as the SupervisorAgent library: a success resets the failure count, closes the
     * circuit and answers RETURN_RESULT (with CACHED, its result is stored as
     * the key's cached value); a failure below failure_threshold answers
     * RETHROW; the failure that reaches it (or any failure of a HALF_OPEN
     * probe) opens the circuit and answers DEGRADE or FAIL_FAST. Idempotent per
     * permit: a repeat with the same outcome returns the first answer. An
     * outcome of an older generation, or of an expired or released permit, is
     * not counted (counted=false; RETURN_RESULT or RETHROW).
     * INVALID_ARGUMENT: empty permit_id, outcome UNSPECIFIED, result over the
     * size limit. NOT_FOUND: unknown permit id. FAILED_PRECONDITION: the permit
     * was already reported with the other outcome.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReportOutcomeResponse> reportOutcome(
        dev.outrider.v1.ReportOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReportOutcomeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gives a permit back without an outcome (the call did not run); nothing is
     * counted and a HALF_OPEN probe slot is freed. released=false when it was
     * already settled or expired. NOT_FOUND: unknown permit id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReleasePermitResponse> releasePermit(
        dev.outrider.v1.ReleasePermitRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleasePermitMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One breaker: state, failure count, generation, configuration.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetBreakerResponse> getBreaker(
        dev.outrider.v1.GetBreakerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetBreakerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Breakers ordered by key, with filters. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListBreakersResponse> listBreakers(
        dev.outrider.v1.ListBreakersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListBreakersMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Back to CLOSED with failure count 0, ending any forced hold; the cached
     * value stays. Emits a state change when the state changed. Operator only.
     * NOT_FOUND: no breaker has the key.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ResetBreakerResponse> resetBreaker(
        dev.outrider.v1.ResetBreakerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResetBreakerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Opens the circuit and holds it open (no HALF_OPEN by timer) until
     * ResetBreaker or ForceClose. Creates the breaker if needed. Reports a
     * failure to the cascade detector like any opening. Operator only.
     * INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ForceOpenResponse> forceOpen(
        dev.outrider.v1.ForceOpenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getForceOpenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Closes the circuit with failure count 0 and holds it closed (failures are
     * counted but do not open it) until ResetBreaker or ForceOpen. Creates the
     * breaker if needed. Operator only. INVALID_ARGUMENT: empty key.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ForceCloseResponse> forceClose(
        dev.outrider.v1.ForceCloseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getForceCloseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets one key's configuration (persisted; creates the breaker if needed).
     * New thresholds apply from the next event; state and counts stay.
     * Operator only: an agent raising its own threshold would hold its breaker
     * closed. INVALID_ARGUMENT: empty key, negative thresholds or durations.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.SetBreakerConfigResponse> setBreakerConfig(
        dev.outrider.v1.SetBreakerConfigRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetBreakerConfigMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Token budgets (the SupervisorAgent library's TokenBudget, the Agent
     * Governance Toolkit's context budget signals).
     * Counts are exact under concurrency and survive restarts. Amounts are
     * tokens; a request "fits" when the agent's remaining and the global
     * remaining both cover it, or, when only the global pool is short, when it
     * is at most the minimum context size of the agent's priority.
     * Sets the agent's allocation and priority. Allocating again replaces it,
     * restarts the agent's count from zero and cancels its open reservations.
     * Sends SIGRESUME when the agent was stopped and now has room.
     * Operator only. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AllocateResponse> allocate(
        dev.outrider.v1.AllocateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAllocateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds to the agent's and the global count. Never refuses: usage beyond
     * the budget is recorded (over_budget), with a warning from 90% usage.
     * Crossing 90% sends SIGWARN (once per crossing), reaching the allocation
     * sends SIGSTOP. A retry with the same request_id is not counted twice.
     * INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0. FAILED_PRECONDITION: the
     * agent has no allocation.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ConsumeResponse> consume(
        dev.outrider.v1.ConsumeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getConsumeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Whether `tokens` fit now (agent and global both have room; see the
     * priority rule above). False, not an error, for an agent without an
     * allocation. INVALID_ARGUMENT: empty agent_id, tokens &lt;= 0.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.CanConsumeResponse> canConsume(
        dev.outrider.v1.CanConsumeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCanConsumeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The agent's remaining tokens; 0 without an allocation (as the source).
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RemainingResponse> remaining(
        dev.outrider.v1.RemainingRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemainingMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The global budget's remaining tokens.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GlobalRemainingResponse> globalRemaining(
        dev.outrider.v1.GlobalRemainingRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGlobalRemainingMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The agent's used / allocated * 100; 0 without an allocation.
     * INVALID_ARGUMENT: empty agent_id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.UsagePercentResponse> usagePercent(
        dev.outrider.v1.UsagePercentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUsagePercentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The global budget's used / total * 100.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GlobalUsagePercentResponse> globalUsagePercent(
        dev.outrider.v1.GlobalUsagePercentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGlobalUsagePercentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The agent's allocation with its counts. NOT_FOUND: no allocation.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetAllocationResponse> getAllocation(
        dev.outrider.v1.GetAllocationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAllocationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Every allocation ordered by agent id, and the global budget (the source's
     * allAllocations). Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListAllocationsResponse> listAllocations(
        dev.outrider.v1.ListAllocationsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAllocationsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets the global budget's total; its used count stays. Operator only.
     * INVALID_ARGUMENT: tokens &lt;= 0.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.SetGlobalBudgetResponse> setGlobalBudget(
        dev.outrider.v1.SetGlobalBudgetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetGlobalBudgetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets aside `estimate` tokens for one call, so concurrent calls cannot
     * overspend together. granted=false (not an error) when it does not fit.
     * The reservation returns its tokens when settled or when it expires.
     * INVALID_ARGUMENT: empty agent_id, estimate &lt;= 0, non-positive ttl.
     * FAILED_PRECONDITION: the agent has no allocation.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReserveResponse> reserve(
        dev.outrider.v1.ReserveRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReserveMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Ends a reservation and consumes `actual` tokens (may differ from the
     * estimate; 0 when the call used none), with Consume's warnings and
     * signals; a settle that brings room back after SIGSTOP sends SIGRESUME.
     * A reservation that expired or was cancelled by a re-allocation holds no
     * tokens any more, but settling it still records `actual`. A repeat with
     * the same actual returns the first answer.
     * INVALID_ARGUMENT: empty reservation_id, actual &lt; 0. NOT_FOUND: unknown
     * reservation. FAILED_PRECONDITION: already settled with another actual.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.SettleResponse> settle(
        dev.outrider.v1.SettleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSettleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Episodic memory (the SupervisorAgent library). A bounded, durable log (max_episodes
     * configurable): when full, recording drops the oldest episode. Queries
     * return the most recently recorded episodes first, up to `limit`.
     * Appends an episode. INVALID_ARGUMENT: empty agent_id, metadata over the
     * size limit.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RecordEpisodeResponse> recordEpisode(
        dev.outrider.v1.RecordEpisodeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecordEpisodeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Episodes whose task_type contains the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.QuerySimilarResponse> querySimilar(
        dev.outrider.v1.QuerySimilarRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getQuerySimilarMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Episodes of one agent. INVALID_ARGUMENT: empty agent_id, negative limit.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.QueryByAgentResponse> queryByAgent(
        dev.outrider.v1.QueryByAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getQueryByAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Episodes whose outcome equals the text, ignoring case.
     * INVALID_ARGUMENT: negative limit.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.QueryByOutcomeResponse> queryByOutcome(
        dev.outrider.v1.QueryByOutcomeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getQueryByOutcomeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Execution leases (the SandboxExecutionGuard contract).
     * Takes one execution slot of the key, waiting (FIFO among waiters) until
     * one is free. Slots per key are configured (default 1; the "noop" policy
     * grants at once, unlimited). The lease holds its slot until released,
     * expired (not renewed within ttl; reaped by the scheduler, the slot goes
     * to the next waiter) or revoked (its agent was killed). A retry with the
     * same request_id returns the lease granted to the first call.
     * INVALID_ARGUMENT: scope UNSPECIFIED, empty id for a non-GLOBAL scope,
     * empty agent_id, non-positive ttl. DEADLINE_EXCEEDED / CANCELLED: the
     * caller's deadline passed or it cancelled while waiting (it leaves the
     * queue).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AcquireLeaseResponse> acquireLease(
        dev.outrider.v1.AcquireLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAcquireLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Extends an active lease to now + ttl; the fencing token is unchanged.
     * INVALID_ARGUMENT: non-positive ttl. NOT_FOUND: unknown lease.
     * FAILED_PRECONDITION: the lease is no longer ACTIVE (the holder lost its
     * slot; the message says whether it expired, was released or revoked).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RenewLeaseResponse> renewLease(
        dev.outrider.v1.RenewLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRenewLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Gives the slot back. Idempotent: the answer is the lease in its final
     * state, RELEASED, or EXPIRED / REVOKED when it had ended before (the
     * holder ran without its slot for a while). NOT_FOUND: unknown lease.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReleaseLeaseResponse> releaseLease(
        dev.outrider.v1.ReleaseLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleaseLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One lease. NOT_FOUND: unknown lease.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetLeaseResponse> getLease(
        dev.outrider.v1.GetLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Leases with filters, newest first. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListLeasesResponse> listLeases(
        dev.outrider.v1.ListLeasesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListLeasesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reversibility and plans (the Agent Governance Toolkit).
     * The reversibility of an action: level, reason, compensating actions,
     * requires_extra_approval. From the built-in map (at least write_file,
     * create_file, delete_file, database_write, drop_table, send_email, deploy,
     * execute_code) as extended by the policy file; an action in neither is
     * UNKNOWN and requires extra approval. INVALID_ARGUMENT: empty action.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AssessReversibilityResponse> assessReversibility(
        dev.outrider.v1.AssessReversibilityRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAssessReversibilityMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The reversibility map in effect (policy rules first, then built-ins),
     * ordered by action. Paginated.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListReversibilityRulesResponse> listReversibilityRules(
        dev.outrider.v1.ListReversibilityRulesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListReversibilityRulesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Checks a plan against a capability set: every step has a unique step id
     * and an action in the capabilities, every dependency exists, and there is
     * no cycle. Returns every violation, not only the first (valid=false is
     * data). INVALID_ARGUMENT: plan over the size limit. NOT_FOUND: agent_id
     * given and unknown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ValidatePlanResponse> validatePlan(
        dev.outrider.v1.ValidatePlanRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getValidatePlanMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_ACQUIRE_PERMIT = 0;
  private static final int METHODID_REPORT_OUTCOME = 1;
  private static final int METHODID_RELEASE_PERMIT = 2;
  private static final int METHODID_GET_BREAKER = 3;
  private static final int METHODID_LIST_BREAKERS = 4;
  private static final int METHODID_RESET_BREAKER = 5;
  private static final int METHODID_FORCE_OPEN = 6;
  private static final int METHODID_FORCE_CLOSE = 7;
  private static final int METHODID_SET_BREAKER_CONFIG = 8;
  private static final int METHODID_ALLOCATE = 9;
  private static final int METHODID_CONSUME = 10;
  private static final int METHODID_CAN_CONSUME = 11;
  private static final int METHODID_REMAINING = 12;
  private static final int METHODID_GLOBAL_REMAINING = 13;
  private static final int METHODID_USAGE_PERCENT = 14;
  private static final int METHODID_GLOBAL_USAGE_PERCENT = 15;
  private static final int METHODID_GET_ALLOCATION = 16;
  private static final int METHODID_LIST_ALLOCATIONS = 17;
  private static final int METHODID_SET_GLOBAL_BUDGET = 18;
  private static final int METHODID_RESERVE = 19;
  private static final int METHODID_SETTLE = 20;
  private static final int METHODID_RECORD_EPISODE = 21;
  private static final int METHODID_QUERY_SIMILAR = 22;
  private static final int METHODID_QUERY_BY_AGENT = 23;
  private static final int METHODID_QUERY_BY_OUTCOME = 24;
  private static final int METHODID_ACQUIRE_LEASE = 25;
  private static final int METHODID_RENEW_LEASE = 26;
  private static final int METHODID_RELEASE_LEASE = 27;
  private static final int METHODID_GET_LEASE = 28;
  private static final int METHODID_LIST_LEASES = 29;
  private static final int METHODID_ASSESS_REVERSIBILITY = 30;
  private static final int METHODID_LIST_REVERSIBILITY_RULES = 31;
  private static final int METHODID_VALIDATE_PLAN = 32;
  private static final int METHODID_REPORT_OUTCOMES = 33;

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
        case METHODID_ACQUIRE_PERMIT:
          serviceImpl.acquirePermit((dev.outrider.v1.AcquirePermitRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AcquirePermitResponse>) responseObserver);
          break;
        case METHODID_REPORT_OUTCOME:
          serviceImpl.reportOutcome((dev.outrider.v1.ReportOutcomeRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomeResponse>) responseObserver);
          break;
        case METHODID_RELEASE_PERMIT:
          serviceImpl.releasePermit((dev.outrider.v1.ReleasePermitRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReleasePermitResponse>) responseObserver);
          break;
        case METHODID_GET_BREAKER:
          serviceImpl.getBreaker((dev.outrider.v1.GetBreakerRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetBreakerResponse>) responseObserver);
          break;
        case METHODID_LIST_BREAKERS:
          serviceImpl.listBreakers((dev.outrider.v1.ListBreakersRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListBreakersResponse>) responseObserver);
          break;
        case METHODID_RESET_BREAKER:
          serviceImpl.resetBreaker((dev.outrider.v1.ResetBreakerRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ResetBreakerResponse>) responseObserver);
          break;
        case METHODID_FORCE_OPEN:
          serviceImpl.forceOpen((dev.outrider.v1.ForceOpenRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ForceOpenResponse>) responseObserver);
          break;
        case METHODID_FORCE_CLOSE:
          serviceImpl.forceClose((dev.outrider.v1.ForceCloseRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ForceCloseResponse>) responseObserver);
          break;
        case METHODID_SET_BREAKER_CONFIG:
          serviceImpl.setBreakerConfig((dev.outrider.v1.SetBreakerConfigRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.SetBreakerConfigResponse>) responseObserver);
          break;
        case METHODID_ALLOCATE:
          serviceImpl.allocate((dev.outrider.v1.AllocateRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AllocateResponse>) responseObserver);
          break;
        case METHODID_CONSUME:
          serviceImpl.consume((dev.outrider.v1.ConsumeRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ConsumeResponse>) responseObserver);
          break;
        case METHODID_CAN_CONSUME:
          serviceImpl.canConsume((dev.outrider.v1.CanConsumeRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.CanConsumeResponse>) responseObserver);
          break;
        case METHODID_REMAINING:
          serviceImpl.remaining((dev.outrider.v1.RemainingRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RemainingResponse>) responseObserver);
          break;
        case METHODID_GLOBAL_REMAINING:
          serviceImpl.globalRemaining((dev.outrider.v1.GlobalRemainingRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalRemainingResponse>) responseObserver);
          break;
        case METHODID_USAGE_PERCENT:
          serviceImpl.usagePercent((dev.outrider.v1.UsagePercentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.UsagePercentResponse>) responseObserver);
          break;
        case METHODID_GLOBAL_USAGE_PERCENT:
          serviceImpl.globalUsagePercent((dev.outrider.v1.GlobalUsagePercentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GlobalUsagePercentResponse>) responseObserver);
          break;
        case METHODID_GET_ALLOCATION:
          serviceImpl.getAllocation((dev.outrider.v1.GetAllocationRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetAllocationResponse>) responseObserver);
          break;
        case METHODID_LIST_ALLOCATIONS:
          serviceImpl.listAllocations((dev.outrider.v1.ListAllocationsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListAllocationsResponse>) responseObserver);
          break;
        case METHODID_SET_GLOBAL_BUDGET:
          serviceImpl.setGlobalBudget((dev.outrider.v1.SetGlobalBudgetRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.SetGlobalBudgetResponse>) responseObserver);
          break;
        case METHODID_RESERVE:
          serviceImpl.reserve((dev.outrider.v1.ReserveRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReserveResponse>) responseObserver);
          break;
        case METHODID_SETTLE:
          serviceImpl.settle((dev.outrider.v1.SettleRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.SettleResponse>) responseObserver);
          break;
        case METHODID_RECORD_EPISODE:
          serviceImpl.recordEpisode((dev.outrider.v1.RecordEpisodeRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RecordEpisodeResponse>) responseObserver);
          break;
        case METHODID_QUERY_SIMILAR:
          serviceImpl.querySimilar((dev.outrider.v1.QuerySimilarRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.QuerySimilarResponse>) responseObserver);
          break;
        case METHODID_QUERY_BY_AGENT:
          serviceImpl.queryByAgent((dev.outrider.v1.QueryByAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByAgentResponse>) responseObserver);
          break;
        case METHODID_QUERY_BY_OUTCOME:
          serviceImpl.queryByOutcome((dev.outrider.v1.QueryByOutcomeRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.QueryByOutcomeResponse>) responseObserver);
          break;
        case METHODID_ACQUIRE_LEASE:
          serviceImpl.acquireLease((dev.outrider.v1.AcquireLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AcquireLeaseResponse>) responseObserver);
          break;
        case METHODID_RENEW_LEASE:
          serviceImpl.renewLease((dev.outrider.v1.RenewLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RenewLeaseResponse>) responseObserver);
          break;
        case METHODID_RELEASE_LEASE:
          serviceImpl.releaseLease((dev.outrider.v1.ReleaseLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReleaseLeaseResponse>) responseObserver);
          break;
        case METHODID_GET_LEASE:
          serviceImpl.getLease((dev.outrider.v1.GetLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetLeaseResponse>) responseObserver);
          break;
        case METHODID_LIST_LEASES:
          serviceImpl.listLeases((dev.outrider.v1.ListLeasesRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListLeasesResponse>) responseObserver);
          break;
        case METHODID_ASSESS_REVERSIBILITY:
          serviceImpl.assessReversibility((dev.outrider.v1.AssessReversibilityRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AssessReversibilityResponse>) responseObserver);
          break;
        case METHODID_LIST_REVERSIBILITY_RULES:
          serviceImpl.listReversibilityRules((dev.outrider.v1.ListReversibilityRulesRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListReversibilityRulesResponse>) responseObserver);
          break;
        case METHODID_VALIDATE_PLAN:
          serviceImpl.validatePlan((dev.outrider.v1.ValidatePlanRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ValidatePlanResponse>) responseObserver);
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
        case METHODID_REPORT_OUTCOMES:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.reportOutcomes(
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReportOutcomesResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getAcquirePermitMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AcquirePermitRequest,
              dev.outrider.v1.AcquirePermitResponse>(
                service, METHODID_ACQUIRE_PERMIT)))
        .addMethod(
          getReportOutcomeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReportOutcomeRequest,
              dev.outrider.v1.ReportOutcomeResponse>(
                service, METHODID_REPORT_OUTCOME)))
        .addMethod(
          getReportOutcomesMethod(),
          io.grpc.stub.ServerCalls.asyncClientStreamingCall(
            new MethodHandlers<
              dev.outrider.v1.ReportOutcomesRequest,
              dev.outrider.v1.ReportOutcomesResponse>(
                service, METHODID_REPORT_OUTCOMES)))
        .addMethod(
          getReleasePermitMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReleasePermitRequest,
              dev.outrider.v1.ReleasePermitResponse>(
                service, METHODID_RELEASE_PERMIT)))
        .addMethod(
          getGetBreakerMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetBreakerRequest,
              dev.outrider.v1.GetBreakerResponse>(
                service, METHODID_GET_BREAKER)))
        .addMethod(
          getListBreakersMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListBreakersRequest,
              dev.outrider.v1.ListBreakersResponse>(
                service, METHODID_LIST_BREAKERS)))
        .addMethod(
          getResetBreakerMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ResetBreakerRequest,
              dev.outrider.v1.ResetBreakerResponse>(
                service, METHODID_RESET_BREAKER)))
        .addMethod(
          getForceOpenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ForceOpenRequest,
              dev.outrider.v1.ForceOpenResponse>(
                service, METHODID_FORCE_OPEN)))
        .addMethod(
          getForceCloseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ForceCloseRequest,
              dev.outrider.v1.ForceCloseResponse>(
                service, METHODID_FORCE_CLOSE)))
        .addMethod(
          getSetBreakerConfigMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.SetBreakerConfigRequest,
              dev.outrider.v1.SetBreakerConfigResponse>(
                service, METHODID_SET_BREAKER_CONFIG)))
        .addMethod(
          getAllocateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AllocateRequest,
              dev.outrider.v1.AllocateResponse>(
                service, METHODID_ALLOCATE)))
        .addMethod(
          getConsumeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ConsumeRequest,
              dev.outrider.v1.ConsumeResponse>(
                service, METHODID_CONSUME)))
        .addMethod(
          getCanConsumeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.CanConsumeRequest,
              dev.outrider.v1.CanConsumeResponse>(
                service, METHODID_CAN_CONSUME)))
        .addMethod(
          getRemainingMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RemainingRequest,
              dev.outrider.v1.RemainingResponse>(
                service, METHODID_REMAINING)))
        .addMethod(
          getGlobalRemainingMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GlobalRemainingRequest,
              dev.outrider.v1.GlobalRemainingResponse>(
                service, METHODID_GLOBAL_REMAINING)))
        .addMethod(
          getUsagePercentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.UsagePercentRequest,
              dev.outrider.v1.UsagePercentResponse>(
                service, METHODID_USAGE_PERCENT)))
        .addMethod(
          getGlobalUsagePercentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GlobalUsagePercentRequest,
              dev.outrider.v1.GlobalUsagePercentResponse>(
                service, METHODID_GLOBAL_USAGE_PERCENT)))
        .addMethod(
          getGetAllocationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetAllocationRequest,
              dev.outrider.v1.GetAllocationResponse>(
                service, METHODID_GET_ALLOCATION)))
        .addMethod(
          getListAllocationsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListAllocationsRequest,
              dev.outrider.v1.ListAllocationsResponse>(
                service, METHODID_LIST_ALLOCATIONS)))
        .addMethod(
          getSetGlobalBudgetMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.SetGlobalBudgetRequest,
              dev.outrider.v1.SetGlobalBudgetResponse>(
                service, METHODID_SET_GLOBAL_BUDGET)))
        .addMethod(
          getReserveMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReserveRequest,
              dev.outrider.v1.ReserveResponse>(
                service, METHODID_RESERVE)))
        .addMethod(
          getSettleMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.SettleRequest,
              dev.outrider.v1.SettleResponse>(
                service, METHODID_SETTLE)))
        .addMethod(
          getRecordEpisodeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RecordEpisodeRequest,
              dev.outrider.v1.RecordEpisodeResponse>(
                service, METHODID_RECORD_EPISODE)))
        .addMethod(
          getQuerySimilarMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.QuerySimilarRequest,
              dev.outrider.v1.QuerySimilarResponse>(
                service, METHODID_QUERY_SIMILAR)))
        .addMethod(
          getQueryByAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.QueryByAgentRequest,
              dev.outrider.v1.QueryByAgentResponse>(
                service, METHODID_QUERY_BY_AGENT)))
        .addMethod(
          getQueryByOutcomeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.QueryByOutcomeRequest,
              dev.outrider.v1.QueryByOutcomeResponse>(
                service, METHODID_QUERY_BY_OUTCOME)))
        .addMethod(
          getAcquireLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AcquireLeaseRequest,
              dev.outrider.v1.AcquireLeaseResponse>(
                service, METHODID_ACQUIRE_LEASE)))
        .addMethod(
          getRenewLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RenewLeaseRequest,
              dev.outrider.v1.RenewLeaseResponse>(
                service, METHODID_RENEW_LEASE)))
        .addMethod(
          getReleaseLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReleaseLeaseRequest,
              dev.outrider.v1.ReleaseLeaseResponse>(
                service, METHODID_RELEASE_LEASE)))
        .addMethod(
          getGetLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetLeaseRequest,
              dev.outrider.v1.GetLeaseResponse>(
                service, METHODID_GET_LEASE)))
        .addMethod(
          getListLeasesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListLeasesRequest,
              dev.outrider.v1.ListLeasesResponse>(
                service, METHODID_LIST_LEASES)))
        .addMethod(
          getAssessReversibilityMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AssessReversibilityRequest,
              dev.outrider.v1.AssessReversibilityResponse>(
                service, METHODID_ASSESS_REVERSIBILITY)))
        .addMethod(
          getListReversibilityRulesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListReversibilityRulesRequest,
              dev.outrider.v1.ListReversibilityRulesResponse>(
                service, METHODID_LIST_REVERSIBILITY_RULES)))
        .addMethod(
          getValidatePlanMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ValidatePlanRequest,
              dev.outrider.v1.ValidatePlanResponse>(
                service, METHODID_VALIDATE_PLAN)))
        .build();
  }

  private static abstract class SafeguardServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    SafeguardServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.outrider.v1.SafeguardServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("SafeguardService");
    }
  }

  private static final class SafeguardServiceFileDescriptorSupplier
      extends SafeguardServiceBaseDescriptorSupplier {
    SafeguardServiceFileDescriptorSupplier() {}
  }

  private static final class SafeguardServiceMethodDescriptorSupplier
      extends SafeguardServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    SafeguardServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (SafeguardServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new SafeguardServiceFileDescriptorSupplier())
              .addMethod(getAcquirePermitMethod())
              .addMethod(getReportOutcomeMethod())
              .addMethod(getReportOutcomesMethod())
              .addMethod(getReleasePermitMethod())
              .addMethod(getGetBreakerMethod())
              .addMethod(getListBreakersMethod())
              .addMethod(getResetBreakerMethod())
              .addMethod(getForceOpenMethod())
              .addMethod(getForceCloseMethod())
              .addMethod(getSetBreakerConfigMethod())
              .addMethod(getAllocateMethod())
              .addMethod(getConsumeMethod())
              .addMethod(getCanConsumeMethod())
              .addMethod(getRemainingMethod())
              .addMethod(getGlobalRemainingMethod())
              .addMethod(getUsagePercentMethod())
              .addMethod(getGlobalUsagePercentMethod())
              .addMethod(getGetAllocationMethod())
              .addMethod(getListAllocationsMethod())
              .addMethod(getSetGlobalBudgetMethod())
              .addMethod(getReserveMethod())
              .addMethod(getSettleMethod())
              .addMethod(getRecordEpisodeMethod())
              .addMethod(getQuerySimilarMethod())
              .addMethod(getQueryByAgentMethod())
              .addMethod(getQueryByOutcomeMethod())
              .addMethod(getAcquireLeaseMethod())
              .addMethod(getRenewLeaseMethod())
              .addMethod(getReleaseLeaseMethod())
              .addMethod(getGetLeaseMethod())
              .addMethod(getListLeasesMethod())
              .addMethod(getAssessReversibilityMethod())
              .addMethod(getListReversibilityRulesMethod())
              .addMethod(getValidatePlanMethod())
              .build();
        }
      }
    }
    return result;
  }
}
