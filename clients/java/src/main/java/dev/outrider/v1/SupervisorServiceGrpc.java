package dev.outrider.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * "May agent X do action Y with context Z?" An ordered guardrail chain, the
 * agent registry, the decision log and human approvals.
 * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
 * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
 * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class SupervisorServiceGrpc {

  private SupervisorServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "outrider.v1.SupervisorService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RegisterAgentRequest,
      dev.outrider.v1.RegisterAgentResponse> getRegisterAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterAgent",
      requestType = dev.outrider.v1.RegisterAgentRequest.class,
      responseType = dev.outrider.v1.RegisterAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RegisterAgentRequest,
      dev.outrider.v1.RegisterAgentResponse> getRegisterAgentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RegisterAgentRequest, dev.outrider.v1.RegisterAgentResponse> getRegisterAgentMethod;
    if ((getRegisterAgentMethod = SupervisorServiceGrpc.getRegisterAgentMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getRegisterAgentMethod = SupervisorServiceGrpc.getRegisterAgentMethod) == null) {
          SupervisorServiceGrpc.getRegisterAgentMethod = getRegisterAgentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RegisterAgentRequest, dev.outrider.v1.RegisterAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RegisterAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RegisterAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("RegisterAgent"))
              .build();
        }
      }
    }
    return getRegisterAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterAgentRequest,
      dev.outrider.v1.DeregisterAgentResponse> getDeregisterAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeregisterAgent",
      requestType = dev.outrider.v1.DeregisterAgentRequest.class,
      responseType = dev.outrider.v1.DeregisterAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterAgentRequest,
      dev.outrider.v1.DeregisterAgentResponse> getDeregisterAgentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.DeregisterAgentRequest, dev.outrider.v1.DeregisterAgentResponse> getDeregisterAgentMethod;
    if ((getDeregisterAgentMethod = SupervisorServiceGrpc.getDeregisterAgentMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getDeregisterAgentMethod = SupervisorServiceGrpc.getDeregisterAgentMethod) == null) {
          SupervisorServiceGrpc.getDeregisterAgentMethod = getDeregisterAgentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.DeregisterAgentRequest, dev.outrider.v1.DeregisterAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeregisterAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DeregisterAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DeregisterAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("DeregisterAgent"))
              .build();
        }
      }
    }
    return getDeregisterAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRequest,
      dev.outrider.v1.GetAgentResponse> getGetAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAgent",
      requestType = dev.outrider.v1.GetAgentRequest.class,
      responseType = dev.outrider.v1.GetAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRequest,
      dev.outrider.v1.GetAgentResponse> getGetAgentMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetAgentRequest, dev.outrider.v1.GetAgentResponse> getGetAgentMethod;
    if ((getGetAgentMethod = SupervisorServiceGrpc.getGetAgentMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getGetAgentMethod = SupervisorServiceGrpc.getGetAgentMethod) == null) {
          SupervisorServiceGrpc.getGetAgentMethod = getGetAgentMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetAgentRequest, dev.outrider.v1.GetAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("GetAgent"))
              .build();
        }
      }
    }
    return getGetAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentsRequest,
      dev.outrider.v1.ListAgentsResponse> getListAgentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgents",
      requestType = dev.outrider.v1.ListAgentsRequest.class,
      responseType = dev.outrider.v1.ListAgentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentsRequest,
      dev.outrider.v1.ListAgentsResponse> getListAgentsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListAgentsRequest, dev.outrider.v1.ListAgentsResponse> getListAgentsMethod;
    if ((getListAgentsMethod = SupervisorServiceGrpc.getListAgentsMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getListAgentsMethod = SupervisorServiceGrpc.getListAgentsMethod) == null) {
          SupervisorServiceGrpc.getListAgentsMethod = getListAgentsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListAgentsRequest, dev.outrider.v1.ListAgentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAgentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListAgentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ListAgents"))
              .build();
        }
      }
    }
    return getListAgentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionRequest,
      dev.outrider.v1.CheckActionResponse> getCheckActionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CheckAction",
      requestType = dev.outrider.v1.CheckActionRequest.class,
      responseType = dev.outrider.v1.CheckActionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionRequest,
      dev.outrider.v1.CheckActionResponse> getCheckActionMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionRequest, dev.outrider.v1.CheckActionResponse> getCheckActionMethod;
    if ((getCheckActionMethod = SupervisorServiceGrpc.getCheckActionMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getCheckActionMethod = SupervisorServiceGrpc.getCheckActionMethod) == null) {
          SupervisorServiceGrpc.getCheckActionMethod = getCheckActionMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.CheckActionRequest, dev.outrider.v1.CheckActionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CheckAction"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CheckActionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CheckActionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("CheckAction"))
              .build();
        }
      }
    }
    return getCheckActionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionsRequest,
      dev.outrider.v1.CheckActionsResponse> getCheckActionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CheckActions",
      requestType = dev.outrider.v1.CheckActionsRequest.class,
      responseType = dev.outrider.v1.CheckActionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionsRequest,
      dev.outrider.v1.CheckActionsResponse> getCheckActionsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.CheckActionsRequest, dev.outrider.v1.CheckActionsResponse> getCheckActionsMethod;
    if ((getCheckActionsMethod = SupervisorServiceGrpc.getCheckActionsMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getCheckActionsMethod = SupervisorServiceGrpc.getCheckActionsMethod) == null) {
          SupervisorServiceGrpc.getCheckActionsMethod = getCheckActionsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.CheckActionsRequest, dev.outrider.v1.CheckActionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CheckActions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CheckActionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CheckActionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("CheckActions"))
              .build();
        }
      }
    }
    return getCheckActionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ExplainActionRequest,
      dev.outrider.v1.ExplainActionResponse> getExplainActionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExplainAction",
      requestType = dev.outrider.v1.ExplainActionRequest.class,
      responseType = dev.outrider.v1.ExplainActionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ExplainActionRequest,
      dev.outrider.v1.ExplainActionResponse> getExplainActionMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ExplainActionRequest, dev.outrider.v1.ExplainActionResponse> getExplainActionMethod;
    if ((getExplainActionMethod = SupervisorServiceGrpc.getExplainActionMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getExplainActionMethod = SupervisorServiceGrpc.getExplainActionMethod) == null) {
          SupervisorServiceGrpc.getExplainActionMethod = getExplainActionMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ExplainActionRequest, dev.outrider.v1.ExplainActionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExplainAction"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ExplainActionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ExplainActionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ExplainAction"))
              .build();
        }
      }
    }
    return getExplainActionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AddGuardrailRequest,
      dev.outrider.v1.AddGuardrailResponse> getAddGuardrailMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddGuardrail",
      requestType = dev.outrider.v1.AddGuardrailRequest.class,
      responseType = dev.outrider.v1.AddGuardrailResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AddGuardrailRequest,
      dev.outrider.v1.AddGuardrailResponse> getAddGuardrailMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AddGuardrailRequest, dev.outrider.v1.AddGuardrailResponse> getAddGuardrailMethod;
    if ((getAddGuardrailMethod = SupervisorServiceGrpc.getAddGuardrailMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getAddGuardrailMethod = SupervisorServiceGrpc.getAddGuardrailMethod) == null) {
          SupervisorServiceGrpc.getAddGuardrailMethod = getAddGuardrailMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AddGuardrailRequest, dev.outrider.v1.AddGuardrailResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddGuardrail"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddGuardrailRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddGuardrailResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("AddGuardrail"))
              .build();
        }
      }
    }
    return getAddGuardrailMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RemoveGuardrailRequest,
      dev.outrider.v1.RemoveGuardrailResponse> getRemoveGuardrailMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemoveGuardrail",
      requestType = dev.outrider.v1.RemoveGuardrailRequest.class,
      responseType = dev.outrider.v1.RemoveGuardrailResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RemoveGuardrailRequest,
      dev.outrider.v1.RemoveGuardrailResponse> getRemoveGuardrailMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RemoveGuardrailRequest, dev.outrider.v1.RemoveGuardrailResponse> getRemoveGuardrailMethod;
    if ((getRemoveGuardrailMethod = SupervisorServiceGrpc.getRemoveGuardrailMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getRemoveGuardrailMethod = SupervisorServiceGrpc.getRemoveGuardrailMethod) == null) {
          SupervisorServiceGrpc.getRemoveGuardrailMethod = getRemoveGuardrailMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RemoveGuardrailRequest, dev.outrider.v1.RemoveGuardrailResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemoveGuardrail"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveGuardrailRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveGuardrailResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("RemoveGuardrail"))
              .build();
        }
      }
    }
    return getRemoveGuardrailMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListGuardrailsRequest,
      dev.outrider.v1.ListGuardrailsResponse> getListGuardrailsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGuardrails",
      requestType = dev.outrider.v1.ListGuardrailsRequest.class,
      responseType = dev.outrider.v1.ListGuardrailsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListGuardrailsRequest,
      dev.outrider.v1.ListGuardrailsResponse> getListGuardrailsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListGuardrailsRequest, dev.outrider.v1.ListGuardrailsResponse> getListGuardrailsMethod;
    if ((getListGuardrailsMethod = SupervisorServiceGrpc.getListGuardrailsMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getListGuardrailsMethod = SupervisorServiceGrpc.getListGuardrailsMethod) == null) {
          SupervisorServiceGrpc.getListGuardrailsMethod = getListGuardrailsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListGuardrailsRequest, dev.outrider.v1.ListGuardrailsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGuardrails"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListGuardrailsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListGuardrailsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ListGuardrails"))
              .build();
        }
      }
    }
    return getListGuardrailsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ReloadPolicyRequest,
      dev.outrider.v1.ReloadPolicyResponse> getReloadPolicyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReloadPolicy",
      requestType = dev.outrider.v1.ReloadPolicyRequest.class,
      responseType = dev.outrider.v1.ReloadPolicyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ReloadPolicyRequest,
      dev.outrider.v1.ReloadPolicyResponse> getReloadPolicyMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ReloadPolicyRequest, dev.outrider.v1.ReloadPolicyResponse> getReloadPolicyMethod;
    if ((getReloadPolicyMethod = SupervisorServiceGrpc.getReloadPolicyMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getReloadPolicyMethod = SupervisorServiceGrpc.getReloadPolicyMethod) == null) {
          SupervisorServiceGrpc.getReloadPolicyMethod = getReloadPolicyMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ReloadPolicyRequest, dev.outrider.v1.ReloadPolicyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReloadPolicy"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReloadPolicyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ReloadPolicyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ReloadPolicy"))
              .build();
        }
      }
    }
    return getReloadPolicyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListDecisionsRequest,
      dev.outrider.v1.ListDecisionsResponse> getListDecisionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDecisions",
      requestType = dev.outrider.v1.ListDecisionsRequest.class,
      responseType = dev.outrider.v1.ListDecisionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListDecisionsRequest,
      dev.outrider.v1.ListDecisionsResponse> getListDecisionsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListDecisionsRequest, dev.outrider.v1.ListDecisionsResponse> getListDecisionsMethod;
    if ((getListDecisionsMethod = SupervisorServiceGrpc.getListDecisionsMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getListDecisionsMethod = SupervisorServiceGrpc.getListDecisionsMethod) == null) {
          SupervisorServiceGrpc.getListDecisionsMethod = getListDecisionsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListDecisionsRequest, dev.outrider.v1.ListDecisionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDecisions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListDecisionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListDecisionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ListDecisions"))
              .build();
        }
      }
    }
    return getListDecisionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.GetApprovalRequest,
      dev.outrider.v1.GetApprovalResponse> getGetApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetApproval",
      requestType = dev.outrider.v1.GetApprovalRequest.class,
      responseType = dev.outrider.v1.GetApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.GetApprovalRequest,
      dev.outrider.v1.GetApprovalResponse> getGetApprovalMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.GetApprovalRequest, dev.outrider.v1.GetApprovalResponse> getGetApprovalMethod;
    if ((getGetApprovalMethod = SupervisorServiceGrpc.getGetApprovalMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getGetApprovalMethod = SupervisorServiceGrpc.getGetApprovalMethod) == null) {
          SupervisorServiceGrpc.getGetApprovalMethod = getGetApprovalMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.GetApprovalRequest, dev.outrider.v1.GetApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.GetApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("GetApproval"))
              .build();
        }
      }
    }
    return getGetApprovalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.WatchApprovalRequest,
      dev.outrider.v1.WatchApprovalResponse> getWatchApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchApproval",
      requestType = dev.outrider.v1.WatchApprovalRequest.class,
      responseType = dev.outrider.v1.WatchApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.WatchApprovalRequest,
      dev.outrider.v1.WatchApprovalResponse> getWatchApprovalMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.WatchApprovalRequest, dev.outrider.v1.WatchApprovalResponse> getWatchApprovalMethod;
    if ((getWatchApprovalMethod = SupervisorServiceGrpc.getWatchApprovalMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getWatchApprovalMethod = SupervisorServiceGrpc.getWatchApprovalMethod) == null) {
          SupervisorServiceGrpc.getWatchApprovalMethod = getWatchApprovalMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.WatchApprovalRequest, dev.outrider.v1.WatchApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WatchApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WatchApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("WatchApproval"))
              .build();
        }
      }
    }
    return getWatchApprovalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListApprovalsRequest,
      dev.outrider.v1.ListApprovalsResponse> getListApprovalsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListApprovals",
      requestType = dev.outrider.v1.ListApprovalsRequest.class,
      responseType = dev.outrider.v1.ListApprovalsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListApprovalsRequest,
      dev.outrider.v1.ListApprovalsResponse> getListApprovalsMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListApprovalsRequest, dev.outrider.v1.ListApprovalsResponse> getListApprovalsMethod;
    if ((getListApprovalsMethod = SupervisorServiceGrpc.getListApprovalsMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getListApprovalsMethod = SupervisorServiceGrpc.getListApprovalsMethod) == null) {
          SupervisorServiceGrpc.getListApprovalsMethod = getListApprovalsMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListApprovalsRequest, dev.outrider.v1.ListApprovalsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListApprovals"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListApprovalsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListApprovalsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("ListApprovals"))
              .build();
        }
      }
    }
    return getListApprovalsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.DecideApprovalRequest,
      dev.outrider.v1.DecideApprovalResponse> getDecideApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DecideApproval",
      requestType = dev.outrider.v1.DecideApprovalRequest.class,
      responseType = dev.outrider.v1.DecideApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.DecideApprovalRequest,
      dev.outrider.v1.DecideApprovalResponse> getDecideApprovalMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.DecideApprovalRequest, dev.outrider.v1.DecideApprovalResponse> getDecideApprovalMethod;
    if ((getDecideApprovalMethod = SupervisorServiceGrpc.getDecideApprovalMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getDecideApprovalMethod = SupervisorServiceGrpc.getDecideApprovalMethod) == null) {
          SupervisorServiceGrpc.getDecideApprovalMethod = getDecideApprovalMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.DecideApprovalRequest, dev.outrider.v1.DecideApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DecideApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DecideApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.DecideApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("DecideApproval"))
              .build();
        }
      }
    }
    return getDecideApprovalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.CancelApprovalRequest,
      dev.outrider.v1.CancelApprovalResponse> getCancelApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelApproval",
      requestType = dev.outrider.v1.CancelApprovalRequest.class,
      responseType = dev.outrider.v1.CancelApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.CancelApprovalRequest,
      dev.outrider.v1.CancelApprovalResponse> getCancelApprovalMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.CancelApprovalRequest, dev.outrider.v1.CancelApprovalResponse> getCancelApprovalMethod;
    if ((getCancelApprovalMethod = SupervisorServiceGrpc.getCancelApprovalMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getCancelApprovalMethod = SupervisorServiceGrpc.getCancelApprovalMethod) == null) {
          SupervisorServiceGrpc.getCancelApprovalMethod = getCancelApprovalMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.CancelApprovalRequest, dev.outrider.v1.CancelApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CancelApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.CancelApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("CancelApproval"))
              .build();
        }
      }
    }
    return getCancelApprovalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.AddApprovalPatternRequest,
      dev.outrider.v1.AddApprovalPatternResponse> getAddApprovalPatternMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddApprovalPattern",
      requestType = dev.outrider.v1.AddApprovalPatternRequest.class,
      responseType = dev.outrider.v1.AddApprovalPatternResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.AddApprovalPatternRequest,
      dev.outrider.v1.AddApprovalPatternResponse> getAddApprovalPatternMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.AddApprovalPatternRequest, dev.outrider.v1.AddApprovalPatternResponse> getAddApprovalPatternMethod;
    if ((getAddApprovalPatternMethod = SupervisorServiceGrpc.getAddApprovalPatternMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getAddApprovalPatternMethod = SupervisorServiceGrpc.getAddApprovalPatternMethod) == null) {
          SupervisorServiceGrpc.getAddApprovalPatternMethod = getAddApprovalPatternMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.AddApprovalPatternRequest, dev.outrider.v1.AddApprovalPatternResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddApprovalPattern"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddApprovalPatternRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.AddApprovalPatternResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("AddApprovalPattern"))
              .build();
        }
      }
    }
    return getAddApprovalPatternMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RemoveApprovalPatternRequest,
      dev.outrider.v1.RemoveApprovalPatternResponse> getRemoveApprovalPatternMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemoveApprovalPattern",
      requestType = dev.outrider.v1.RemoveApprovalPatternRequest.class,
      responseType = dev.outrider.v1.RemoveApprovalPatternResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RemoveApprovalPatternRequest,
      dev.outrider.v1.RemoveApprovalPatternResponse> getRemoveApprovalPatternMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RemoveApprovalPatternRequest, dev.outrider.v1.RemoveApprovalPatternResponse> getRemoveApprovalPatternMethod;
    if ((getRemoveApprovalPatternMethod = SupervisorServiceGrpc.getRemoveApprovalPatternMethod) == null) {
      synchronized (SupervisorServiceGrpc.class) {
        if ((getRemoveApprovalPatternMethod = SupervisorServiceGrpc.getRemoveApprovalPatternMethod) == null) {
          SupervisorServiceGrpc.getRemoveApprovalPatternMethod = getRemoveApprovalPatternMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RemoveApprovalPatternRequest, dev.outrider.v1.RemoveApprovalPatternResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemoveApprovalPattern"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveApprovalPatternRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RemoveApprovalPatternResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SupervisorServiceMethodDescriptorSupplier("RemoveApprovalPattern"))
              .build();
        }
      }
    }
    return getRemoveApprovalPatternMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static SupervisorServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceStub>() {
        @java.lang.Override
        public SupervisorServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SupervisorServiceStub(channel, callOptions);
        }
      };
    return SupervisorServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static SupervisorServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceBlockingV2Stub>() {
        @java.lang.Override
        public SupervisorServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SupervisorServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return SupervisorServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static SupervisorServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceBlockingStub>() {
        @java.lang.Override
        public SupervisorServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SupervisorServiceBlockingStub(channel, callOptions);
        }
      };
    return SupervisorServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static SupervisorServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SupervisorServiceFutureStub>() {
        @java.lang.Override
        public SupervisorServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SupervisorServiceFutureStub(channel, callOptions);
        }
      };
    return SupervisorServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Registers an agent, or updates it when the id exists (idempotent).
     * Agent records are operator-owned: an operator credential sets group,
     * labels and capabilities (and places a quarantined agent in a group). An
     * agent credential may only create its own missing record, bare, in
     * `agents.default_group`, as `agents.self_registration` allows (deny,
     * first_time: once per id, allow); re-registering an existing record
     * returns it unchanged. PERMISSION_DENIED: an agent credential giving a
     * group, labels or capabilities other than its record's (reason
     * OPERATOR_OWNED_FIELD, `field` names which), or self-registration refused
     * (SELF_REGISTRATION_DISABLED). INVALID_ARGUMENT: empty or oversized
     * agent_id, characters outside letters, digits and . _ &#64; / - (no ':'),
     * bad labels.
     * </pre>
     */
    default void registerAgent(dev.outrider.v1.RegisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes an agent. NOT_FOUND when unknown.
     * </pre>
     */
    default void deregisterAgent(dev.outrider.v1.DeregisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeregisterAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns one agent. NOT_FOUND when unknown.
     * </pre>
     */
    default void getAgent(dev.outrider.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists agents ordered by id, optionally of one group. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    default void listAgents(dev.outrider.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the guardrail chain for one action. Trust-root guardrails run first,
     * then the others in chain order; the first block wins; warnings accumulate.
     * INVALID_ARGUMENT: empty agent_id or action, context over the size limit.
     * </pre>
     */
    default void checkAction(dev.outrider.v1.CheckActionRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCheckActionMethod(), responseObserver);
    }

    /**
     * <pre>
     * CheckAction for an agent that checks at a high rate: one long-lived stream
     * instead of a call per action (measured in docs/benchmarks.md, "Streaming
     * CheckActions"). Each request is decided exactly as a unary CheckAction
     * (authorization of check.agent_id, the credential's rate limit,
     * limits.max_inflight_per_agent, validation, request_id re-attaching to an
     * approval, one decision-log record and one span per decision) and answered
     * once with the request's `id`. Answers come as decisions finish, not in
     * request order: a request waiting for a human holds up no other. A request
     * that fails (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) is answered with
     * `error` and the stream goes on. The stream itself ends with
     * PERMISSION_DENIED when a request names another agent or the agent is
     * killed or its credential revoked while the stream is open, and with
     * INVALID_ARGUMENT when an id is reused while its request is in flight.
     * Half-closing the request side ends the stream once every request is
     * answered.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionsRequest> checkActions(
        io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionsResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getCheckActionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * What CheckAction would answer for this call now, guardrail by guardrail in
     * evaluation order, with no side effect: no rate-limit count, no approval
     * request, no circuit-breaker permit, no decision-log record, no metric. A
     * hitl guardrail that matches ends the explanation with allowed=false and
     * needs_approval=true ("would ask a human"). An operator, or an agent for
     * itself. INVALID_ARGUMENT: as CheckAction (agent_id, action, context size).
     * </pre>
     */
    default void explainAction(dev.outrider.v1.ExplainActionRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ExplainActionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExplainActionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Appends a guardrail to the chain (persisted). INVALID_ARGUMENT: unknown
     * kind, bad options (e.g. an invalid regex), empty name.
     * </pre>
     */
    default void addGuardrail(dev.outrider.v1.AddGuardrailRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddGuardrailResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddGuardrailMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes every guardrail with the name and says how many were removed.
     * NOT_FOUND: no guardrail has that name. FAILED_PRECONDITION: the name is a
     * trust_root guardrail, which only the policy file can remove.
     * </pre>
     */
    default void removeGuardrail(dev.outrider.v1.RemoveGuardrailRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveGuardrailResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemoveGuardrailMethod(), responseObserver);
    }

    /**
     * <pre>
     * The chain in evaluation order (trust-root guardrails first).
     * </pre>
     */
    default void listGuardrails(dev.outrider.v1.ListGuardrailsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListGuardrailsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGuardrailsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Re-reads the policy file and replaces the chain with it. On any error the
     * old chain stays and the error is returned: INVALID_ARGUMENT (bad policy)
     * or FAILED_PRECONDITION (no policy file configured).
     * </pre>
     */
    default void reloadPolicy(dev.outrider.v1.ReloadPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReloadPolicyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReloadPolicyMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists stored decisions, newest first, with filters. Paginated.
     * </pre>
     */
    default void listDecisions(dev.outrider.v1.ListDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListDecisionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDecisionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Human approvals (the `hitl` guardrail).
     * Returns one approval request. NOT_FOUND when unknown.
     * </pre>
     */
    default void getApproval(dev.outrider.v1.GetApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetApprovalMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams the approval's current state, then every change until it is closed.
     * </pre>
     */
    default void watchApproval(dev.outrider.v1.WatchApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WatchApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchApprovalMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists approval requests, newest first, with filters. Paginated.
     * </pre>
     */
    default void listApprovals(dev.outrider.v1.ListApprovalsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListApprovalsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListApprovalsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Records a reviewer's decision. FAILED_PRECONDITION when already decided;
     * PERMISSION_DENIED when the caller may not decide it.
     * </pre>
     */
    default void decideApproval(dev.outrider.v1.DecideApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DecideApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDecideApprovalMethod(), responseObserver);
    }

    /**
     * <pre>
     * Cancels a pending approval request. FAILED_PRECONDITION when already closed.
     * </pre>
     */
    default void cancelApproval(dev.outrider.v1.CancelApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CancelApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelApprovalMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds a pattern to a named hitl guardrail (persisted). NOT_FOUND: no hitl
     * guardrail has that name.
     * </pre>
     */
    default void addApprovalPattern(dev.outrider.v1.AddApprovalPatternRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddApprovalPatternResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddApprovalPatternMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a pattern from a named hitl guardrail (persisted).
     * </pre>
     */
    default void removeApprovalPattern(dev.outrider.v1.RemoveApprovalPatternRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveApprovalPatternResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemoveApprovalPatternMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service SupervisorService.
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public static abstract class SupervisorServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return SupervisorServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service SupervisorService.
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public static final class SupervisorServiceStub
      extends io.grpc.stub.AbstractAsyncStub<SupervisorServiceStub> {
    private SupervisorServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SupervisorServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SupervisorServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Registers an agent, or updates it when the id exists (idempotent).
     * Agent records are operator-owned: an operator credential sets group,
     * labels and capabilities (and places a quarantined agent in a group). An
     * agent credential may only create its own missing record, bare, in
     * `agents.default_group`, as `agents.self_registration` allows (deny,
     * first_time: once per id, allow); re-registering an existing record
     * returns it unchanged. PERMISSION_DENIED: an agent credential giving a
     * group, labels or capabilities other than its record's (reason
     * OPERATOR_OWNED_FIELD, `field` names which), or self-registration refused
     * (SELF_REGISTRATION_DISABLED). INVALID_ARGUMENT: empty or oversized
     * agent_id, characters outside letters, digits and . _ &#64; / - (no ':'),
     * bad labels.
     * </pre>
     */
    public void registerAgent(dev.outrider.v1.RegisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes an agent. NOT_FOUND when unknown.
     * </pre>
     */
    public void deregisterAgent(dev.outrider.v1.DeregisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeregisterAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns one agent. NOT_FOUND when unknown.
     * </pre>
     */
    public void getAgent(dev.outrider.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists agents ordered by id, optionally of one group. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public void listAgents(dev.outrider.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the guardrail chain for one action. Trust-root guardrails run first,
     * then the others in chain order; the first block wins; warnings accumulate.
     * INVALID_ARGUMENT: empty agent_id or action, context over the size limit.
     * </pre>
     */
    public void checkAction(dev.outrider.v1.CheckActionRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCheckActionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CheckAction for an agent that checks at a high rate: one long-lived stream
     * instead of a call per action (measured in docs/benchmarks.md, "Streaming
     * CheckActions"). Each request is decided exactly as a unary CheckAction
     * (authorization of check.agent_id, the credential's rate limit,
     * limits.max_inflight_per_agent, validation, request_id re-attaching to an
     * approval, one decision-log record and one span per decision) and answered
     * once with the request's `id`. Answers come as decisions finish, not in
     * request order: a request waiting for a human holds up no other. A request
     * that fails (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) is answered with
     * `error` and the stream goes on. The stream itself ends with
     * PERMISSION_DENIED when a request names another agent or the agent is
     * killed or its credential revoked while the stream is open, and with
     * INVALID_ARGUMENT when an id is reused while its request is in flight.
     * Half-closing the request side ends the stream once every request is
     * answered.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionsRequest> checkActions(
        io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionsResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getCheckActionsMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * What CheckAction would answer for this call now, guardrail by guardrail in
     * evaluation order, with no side effect: no rate-limit count, no approval
     * request, no circuit-breaker permit, no decision-log record, no metric. A
     * hitl guardrail that matches ends the explanation with allowed=false and
     * needs_approval=true ("would ask a human"). An operator, or an agent for
     * itself. INVALID_ARGUMENT: as CheckAction (agent_id, action, context size).
     * </pre>
     */
    public void explainAction(dev.outrider.v1.ExplainActionRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ExplainActionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExplainActionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Appends a guardrail to the chain (persisted). INVALID_ARGUMENT: unknown
     * kind, bad options (e.g. an invalid regex), empty name.
     * </pre>
     */
    public void addGuardrail(dev.outrider.v1.AddGuardrailRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddGuardrailResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddGuardrailMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes every guardrail with the name and says how many were removed.
     * NOT_FOUND: no guardrail has that name. FAILED_PRECONDITION: the name is a
     * trust_root guardrail, which only the policy file can remove.
     * </pre>
     */
    public void removeGuardrail(dev.outrider.v1.RemoveGuardrailRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveGuardrailResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemoveGuardrailMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The chain in evaluation order (trust-root guardrails first).
     * </pre>
     */
    public void listGuardrails(dev.outrider.v1.ListGuardrailsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListGuardrailsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGuardrailsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Re-reads the policy file and replaces the chain with it. On any error the
     * old chain stays and the error is returned: INVALID_ARGUMENT (bad policy)
     * or FAILED_PRECONDITION (no policy file configured).
     * </pre>
     */
    public void reloadPolicy(dev.outrider.v1.ReloadPolicyRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ReloadPolicyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReloadPolicyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists stored decisions, newest first, with filters. Paginated.
     * </pre>
     */
    public void listDecisions(dev.outrider.v1.ListDecisionsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListDecisionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDecisionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Human approvals (the `hitl` guardrail).
     * Returns one approval request. NOT_FOUND when unknown.
     * </pre>
     */
    public void getApproval(dev.outrider.v1.GetApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.GetApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetApprovalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams the approval's current state, then every change until it is closed.
     * </pre>
     */
    public void watchApproval(dev.outrider.v1.WatchApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WatchApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchApprovalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists approval requests, newest first, with filters. Paginated.
     * </pre>
     */
    public void listApprovals(dev.outrider.v1.ListApprovalsRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListApprovalsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListApprovalsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Records a reviewer's decision. FAILED_PRECONDITION when already decided;
     * PERMISSION_DENIED when the caller may not decide it.
     * </pre>
     */
    public void decideApproval(dev.outrider.v1.DecideApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.DecideApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDecideApprovalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Cancels a pending approval request. FAILED_PRECONDITION when already closed.
     * </pre>
     */
    public void cancelApproval(dev.outrider.v1.CancelApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.CancelApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelApprovalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds a pattern to a named hitl guardrail (persisted). NOT_FOUND: no hitl
     * guardrail has that name.
     * </pre>
     */
    public void addApprovalPattern(dev.outrider.v1.AddApprovalPatternRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.AddApprovalPatternResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddApprovalPatternMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a pattern from a named hitl guardrail (persisted).
     * </pre>
     */
    public void removeApprovalPattern(dev.outrider.v1.RemoveApprovalPatternRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveApprovalPatternResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemoveApprovalPatternMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service SupervisorService.
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public static final class SupervisorServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<SupervisorServiceBlockingV2Stub> {
    private SupervisorServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SupervisorServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SupervisorServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Registers an agent, or updates it when the id exists (idempotent).
     * Agent records are operator-owned: an operator credential sets group,
     * labels and capabilities (and places a quarantined agent in a group). An
     * agent credential may only create its own missing record, bare, in
     * `agents.default_group`, as `agents.self_registration` allows (deny,
     * first_time: once per id, allow); re-registering an existing record
     * returns it unchanged. PERMISSION_DENIED: an agent credential giving a
     * group, labels or capabilities other than its record's (reason
     * OPERATOR_OWNED_FIELD, `field` names which), or self-registration refused
     * (SELF_REGISTRATION_DISABLED). INVALID_ARGUMENT: empty or oversized
     * agent_id, characters outside letters, digits and . _ &#64; / - (no ':'),
     * bad labels.
     * </pre>
     */
    public dev.outrider.v1.RegisterAgentResponse registerAgent(dev.outrider.v1.RegisterAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes an agent. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.DeregisterAgentResponse deregisterAgent(dev.outrider.v1.DeregisterAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeregisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one agent. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.GetAgentResponse getAgent(dev.outrider.v1.GetAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists agents ordered by id, optionally of one group. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAgentsResponse listAgents(dev.outrider.v1.ListAgentsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the guardrail chain for one action. Trust-root guardrails run first,
     * then the others in chain order; the first block wins; warnings accumulate.
     * INVALID_ARGUMENT: empty agent_id or action, context over the size limit.
     * </pre>
     */
    public dev.outrider.v1.CheckActionResponse checkAction(dev.outrider.v1.CheckActionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCheckActionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CheckAction for an agent that checks at a high rate: one long-lived stream
     * instead of a call per action (measured in docs/benchmarks.md, "Streaming
     * CheckActions"). Each request is decided exactly as a unary CheckAction
     * (authorization of check.agent_id, the credential's rate limit,
     * limits.max_inflight_per_agent, validation, request_id re-attaching to an
     * approval, one decision-log record and one span per decision) and answered
     * once with the request's `id`. Answers come as decisions finish, not in
     * request order: a request waiting for a human holds up no other. A request
     * that fails (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) is answered with
     * `error` and the stream goes on. The stream itself ends with
     * PERMISSION_DENIED when a request names another agent or the agent is
     * killed or its credential revoked while the stream is open, and with
     * INVALID_ARGUMENT when an id is reused while its request is in flight.
     * Half-closing the request side ends the stream once every request is
     * answered.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.outrider.v1.CheckActionsRequest, dev.outrider.v1.CheckActionsResponse>
        checkActions() {
      return io.grpc.stub.ClientCalls.blockingBidiStreamingCall(
          getChannel(), getCheckActionsMethod(), getCallOptions());
    }

    /**
     * <pre>
     * What CheckAction would answer for this call now, guardrail by guardrail in
     * evaluation order, with no side effect: no rate-limit count, no approval
     * request, no circuit-breaker permit, no decision-log record, no metric. A
     * hitl guardrail that matches ends the explanation with allowed=false and
     * needs_approval=true ("would ask a human"). An operator, or an agent for
     * itself. INVALID_ARGUMENT: as CheckAction (agent_id, action, context size).
     * </pre>
     */
    public dev.outrider.v1.ExplainActionResponse explainAction(dev.outrider.v1.ExplainActionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getExplainActionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends a guardrail to the chain (persisted). INVALID_ARGUMENT: unknown
     * kind, bad options (e.g. an invalid regex), empty name.
     * </pre>
     */
    public dev.outrider.v1.AddGuardrailResponse addGuardrail(dev.outrider.v1.AddGuardrailRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAddGuardrailMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes every guardrail with the name and says how many were removed.
     * NOT_FOUND: no guardrail has that name. FAILED_PRECONDITION: the name is a
     * trust_root guardrail, which only the policy file can remove.
     * </pre>
     */
    public dev.outrider.v1.RemoveGuardrailResponse removeGuardrail(dev.outrider.v1.RemoveGuardrailRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemoveGuardrailMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The chain in evaluation order (trust-root guardrails first).
     * </pre>
     */
    public dev.outrider.v1.ListGuardrailsResponse listGuardrails(dev.outrider.v1.ListGuardrailsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGuardrailsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Re-reads the policy file and replaces the chain with it. On any error the
     * old chain stays and the error is returned: INVALID_ARGUMENT (bad policy)
     * or FAILED_PRECONDITION (no policy file configured).
     * </pre>
     */
    public dev.outrider.v1.ReloadPolicyResponse reloadPolicy(dev.outrider.v1.ReloadPolicyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReloadPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists stored decisions, newest first, with filters. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListDecisionsResponse listDecisions(dev.outrider.v1.ListDecisionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Human approvals (the `hitl` guardrail).
     * Returns one approval request. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.GetApprovalResponse getApproval(dev.outrider.v1.GetApprovalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams the approval's current state, then every change until it is closed.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.outrider.v1.WatchApprovalResponse>
        watchApproval(dev.outrider.v1.WatchApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists approval requests, newest first, with filters. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListApprovalsResponse listApprovals(dev.outrider.v1.ListApprovalsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListApprovalsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records a reviewer's decision. FAILED_PRECONDITION when already decided;
     * PERMISSION_DENIED when the caller may not decide it.
     * </pre>
     */
    public dev.outrider.v1.DecideApprovalResponse decideApproval(dev.outrider.v1.DecideApprovalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDecideApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels a pending approval request. FAILED_PRECONDITION when already closed.
     * </pre>
     */
    public dev.outrider.v1.CancelApprovalResponse cancelApproval(dev.outrider.v1.CancelApprovalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCancelApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a pattern to a named hitl guardrail (persisted). NOT_FOUND: no hitl
     * guardrail has that name.
     * </pre>
     */
    public dev.outrider.v1.AddApprovalPatternResponse addApprovalPattern(dev.outrider.v1.AddApprovalPatternRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAddApprovalPatternMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a pattern from a named hitl guardrail (persisted).
     * </pre>
     */
    public dev.outrider.v1.RemoveApprovalPatternResponse removeApprovalPattern(dev.outrider.v1.RemoveApprovalPatternRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRemoveApprovalPatternMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service SupervisorService.
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public static final class SupervisorServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<SupervisorServiceBlockingStub> {
    private SupervisorServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SupervisorServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SupervisorServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Registers an agent, or updates it when the id exists (idempotent).
     * Agent records are operator-owned: an operator credential sets group,
     * labels and capabilities (and places a quarantined agent in a group). An
     * agent credential may only create its own missing record, bare, in
     * `agents.default_group`, as `agents.self_registration` allows (deny,
     * first_time: once per id, allow); re-registering an existing record
     * returns it unchanged. PERMISSION_DENIED: an agent credential giving a
     * group, labels or capabilities other than its record's (reason
     * OPERATOR_OWNED_FIELD, `field` names which), or self-registration refused
     * (SELF_REGISTRATION_DISABLED). INVALID_ARGUMENT: empty or oversized
     * agent_id, characters outside letters, digits and . _ &#64; / - (no ':'),
     * bad labels.
     * </pre>
     */
    public dev.outrider.v1.RegisterAgentResponse registerAgent(dev.outrider.v1.RegisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes an agent. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.DeregisterAgentResponse deregisterAgent(dev.outrider.v1.DeregisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeregisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one agent. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.GetAgentResponse getAgent(dev.outrider.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists agents ordered by id, optionally of one group. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public dev.outrider.v1.ListAgentsResponse listAgents(dev.outrider.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the guardrail chain for one action. Trust-root guardrails run first,
     * then the others in chain order; the first block wins; warnings accumulate.
     * INVALID_ARGUMENT: empty agent_id or action, context over the size limit.
     * </pre>
     */
    public dev.outrider.v1.CheckActionResponse checkAction(dev.outrider.v1.CheckActionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCheckActionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * What CheckAction would answer for this call now, guardrail by guardrail in
     * evaluation order, with no side effect: no rate-limit count, no approval
     * request, no circuit-breaker permit, no decision-log record, no metric. A
     * hitl guardrail that matches ends the explanation with allowed=false and
     * needs_approval=true ("would ask a human"). An operator, or an agent for
     * itself. INVALID_ARGUMENT: as CheckAction (agent_id, action, context size).
     * </pre>
     */
    public dev.outrider.v1.ExplainActionResponse explainAction(dev.outrider.v1.ExplainActionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExplainActionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Appends a guardrail to the chain (persisted). INVALID_ARGUMENT: unknown
     * kind, bad options (e.g. an invalid regex), empty name.
     * </pre>
     */
    public dev.outrider.v1.AddGuardrailResponse addGuardrail(dev.outrider.v1.AddGuardrailRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddGuardrailMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes every guardrail with the name and says how many were removed.
     * NOT_FOUND: no guardrail has that name. FAILED_PRECONDITION: the name is a
     * trust_root guardrail, which only the policy file can remove.
     * </pre>
     */
    public dev.outrider.v1.RemoveGuardrailResponse removeGuardrail(dev.outrider.v1.RemoveGuardrailRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemoveGuardrailMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The chain in evaluation order (trust-root guardrails first).
     * </pre>
     */
    public dev.outrider.v1.ListGuardrailsResponse listGuardrails(dev.outrider.v1.ListGuardrailsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGuardrailsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Re-reads the policy file and replaces the chain with it. On any error the
     * old chain stays and the error is returned: INVALID_ARGUMENT (bad policy)
     * or FAILED_PRECONDITION (no policy file configured).
     * </pre>
     */
    public dev.outrider.v1.ReloadPolicyResponse reloadPolicy(dev.outrider.v1.ReloadPolicyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReloadPolicyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists stored decisions, newest first, with filters. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListDecisionsResponse listDecisions(dev.outrider.v1.ListDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDecisionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Human approvals (the `hitl` guardrail).
     * Returns one approval request. NOT_FOUND when unknown.
     * </pre>
     */
    public dev.outrider.v1.GetApprovalResponse getApproval(dev.outrider.v1.GetApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams the approval's current state, then every change until it is closed.
     * </pre>
     */
    public java.util.Iterator<dev.outrider.v1.WatchApprovalResponse> watchApproval(
        dev.outrider.v1.WatchApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists approval requests, newest first, with filters. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListApprovalsResponse listApprovals(dev.outrider.v1.ListApprovalsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListApprovalsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Records a reviewer's decision. FAILED_PRECONDITION when already decided;
     * PERMISSION_DENIED when the caller may not decide it.
     * </pre>
     */
    public dev.outrider.v1.DecideApprovalResponse decideApproval(dev.outrider.v1.DecideApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDecideApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels a pending approval request. FAILED_PRECONDITION when already closed.
     * </pre>
     */
    public dev.outrider.v1.CancelApprovalResponse cancelApproval(dev.outrider.v1.CancelApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a pattern to a named hitl guardrail (persisted). NOT_FOUND: no hitl
     * guardrail has that name.
     * </pre>
     */
    public dev.outrider.v1.AddApprovalPatternResponse addApprovalPattern(dev.outrider.v1.AddApprovalPatternRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddApprovalPatternMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a pattern from a named hitl guardrail (persisted).
     * </pre>
     */
    public dev.outrider.v1.RemoveApprovalPatternResponse removeApprovalPattern(dev.outrider.v1.RemoveApprovalPatternRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemoveApprovalPatternMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service SupervisorService.
   * <pre>
   * "May agent X do action Y with context Z?" An ordered guardrail chain, the
   * agent registry, the decision log and human approvals.
   * A policy outcome (blocked, warning, pending approval) is response data; a gRPC
   * error means the sidecar could not answer. Errors carry a google.rpc.ErrorInfo
   * with domain "outrider.dev" and a reason such as INVALID_FIELD or NOT_FOUND.
   * </pre>
   */
  public static final class SupervisorServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<SupervisorServiceFutureStub> {
    private SupervisorServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SupervisorServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SupervisorServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Registers an agent, or updates it when the id exists (idempotent).
     * Agent records are operator-owned: an operator credential sets group,
     * labels and capabilities (and places a quarantined agent in a group). An
     * agent credential may only create its own missing record, bare, in
     * `agents.default_group`, as `agents.self_registration` allows (deny,
     * first_time: once per id, allow); re-registering an existing record
     * returns it unchanged. PERMISSION_DENIED: an agent credential giving a
     * group, labels or capabilities other than its record's (reason
     * OPERATOR_OWNED_FIELD, `field` names which), or self-registration refused
     * (SELF_REGISTRATION_DISABLED). INVALID_ARGUMENT: empty or oversized
     * agent_id, characters outside letters, digits and . _ &#64; / - (no ':'),
     * bad labels.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RegisterAgentResponse> registerAgent(
        dev.outrider.v1.RegisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes an agent. NOT_FOUND when unknown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.DeregisterAgentResponse> deregisterAgent(
        dev.outrider.v1.DeregisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeregisterAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns one agent. NOT_FOUND when unknown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetAgentResponse> getAgent(
        dev.outrider.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists agents ordered by id, optionally of one group. Paginated.
     * INVALID_ARGUMENT: negative page_size, bad page_token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListAgentsResponse> listAgents(
        dev.outrider.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs the guardrail chain for one action. Trust-root guardrails run first,
     * then the others in chain order; the first block wins; warnings accumulate.
     * INVALID_ARGUMENT: empty agent_id or action, context over the size limit.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.CheckActionResponse> checkAction(
        dev.outrider.v1.CheckActionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCheckActionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * What CheckAction would answer for this call now, guardrail by guardrail in
     * evaluation order, with no side effect: no rate-limit count, no approval
     * request, no circuit-breaker permit, no decision-log record, no metric. A
     * hitl guardrail that matches ends the explanation with allowed=false and
     * needs_approval=true ("would ask a human"). An operator, or an agent for
     * itself. INVALID_ARGUMENT: as CheckAction (agent_id, action, context size).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ExplainActionResponse> explainAction(
        dev.outrider.v1.ExplainActionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExplainActionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Appends a guardrail to the chain (persisted). INVALID_ARGUMENT: unknown
     * kind, bad options (e.g. an invalid regex), empty name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AddGuardrailResponse> addGuardrail(
        dev.outrider.v1.AddGuardrailRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddGuardrailMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes every guardrail with the name and says how many were removed.
     * NOT_FOUND: no guardrail has that name. FAILED_PRECONDITION: the name is a
     * trust_root guardrail, which only the policy file can remove.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RemoveGuardrailResponse> removeGuardrail(
        dev.outrider.v1.RemoveGuardrailRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemoveGuardrailMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The chain in evaluation order (trust-root guardrails first).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListGuardrailsResponse> listGuardrails(
        dev.outrider.v1.ListGuardrailsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGuardrailsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Re-reads the policy file and replaces the chain with it. On any error the
     * old chain stays and the error is returned: INVALID_ARGUMENT (bad policy)
     * or FAILED_PRECONDITION (no policy file configured).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ReloadPolicyResponse> reloadPolicy(
        dev.outrider.v1.ReloadPolicyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReloadPolicyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists stored decisions, newest first, with filters. Paginated.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListDecisionsResponse> listDecisions(
        dev.outrider.v1.ListDecisionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDecisionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Human approvals (the `hitl` guardrail).
     * Returns one approval request. NOT_FOUND when unknown.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.GetApprovalResponse> getApproval(
        dev.outrider.v1.GetApprovalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetApprovalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists approval requests, newest first, with filters. Paginated.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListApprovalsResponse> listApprovals(
        dev.outrider.v1.ListApprovalsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListApprovalsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Records a reviewer's decision. FAILED_PRECONDITION when already decided;
     * PERMISSION_DENIED when the caller may not decide it.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.DecideApprovalResponse> decideApproval(
        dev.outrider.v1.DecideApprovalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDecideApprovalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Cancels a pending approval request. FAILED_PRECONDITION when already closed.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.CancelApprovalResponse> cancelApproval(
        dev.outrider.v1.CancelApprovalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelApprovalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds a pattern to a named hitl guardrail (persisted). NOT_FOUND: no hitl
     * guardrail has that name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.AddApprovalPatternResponse> addApprovalPattern(
        dev.outrider.v1.AddApprovalPatternRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddApprovalPatternMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a pattern from a named hitl guardrail (persisted).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RemoveApprovalPatternResponse> removeApprovalPattern(
        dev.outrider.v1.RemoveApprovalPatternRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemoveApprovalPatternMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_REGISTER_AGENT = 0;
  private static final int METHODID_DEREGISTER_AGENT = 1;
  private static final int METHODID_GET_AGENT = 2;
  private static final int METHODID_LIST_AGENTS = 3;
  private static final int METHODID_CHECK_ACTION = 4;
  private static final int METHODID_EXPLAIN_ACTION = 5;
  private static final int METHODID_ADD_GUARDRAIL = 6;
  private static final int METHODID_REMOVE_GUARDRAIL = 7;
  private static final int METHODID_LIST_GUARDRAILS = 8;
  private static final int METHODID_RELOAD_POLICY = 9;
  private static final int METHODID_LIST_DECISIONS = 10;
  private static final int METHODID_GET_APPROVAL = 11;
  private static final int METHODID_WATCH_APPROVAL = 12;
  private static final int METHODID_LIST_APPROVALS = 13;
  private static final int METHODID_DECIDE_APPROVAL = 14;
  private static final int METHODID_CANCEL_APPROVAL = 15;
  private static final int METHODID_ADD_APPROVAL_PATTERN = 16;
  private static final int METHODID_REMOVE_APPROVAL_PATTERN = 17;
  private static final int METHODID_CHECK_ACTIONS = 18;

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
        case METHODID_REGISTER_AGENT:
          serviceImpl.registerAgent((dev.outrider.v1.RegisterAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RegisterAgentResponse>) responseObserver);
          break;
        case METHODID_DEREGISTER_AGENT:
          serviceImpl.deregisterAgent((dev.outrider.v1.DeregisterAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.DeregisterAgentResponse>) responseObserver);
          break;
        case METHODID_GET_AGENT:
          serviceImpl.getAgent((dev.outrider.v1.GetAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetAgentResponse>) responseObserver);
          break;
        case METHODID_LIST_AGENTS:
          serviceImpl.listAgents((dev.outrider.v1.ListAgentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListAgentsResponse>) responseObserver);
          break;
        case METHODID_CHECK_ACTION:
          serviceImpl.checkAction((dev.outrider.v1.CheckActionRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionResponse>) responseObserver);
          break;
        case METHODID_EXPLAIN_ACTION:
          serviceImpl.explainAction((dev.outrider.v1.ExplainActionRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ExplainActionResponse>) responseObserver);
          break;
        case METHODID_ADD_GUARDRAIL:
          serviceImpl.addGuardrail((dev.outrider.v1.AddGuardrailRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AddGuardrailResponse>) responseObserver);
          break;
        case METHODID_REMOVE_GUARDRAIL:
          serviceImpl.removeGuardrail((dev.outrider.v1.RemoveGuardrailRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveGuardrailResponse>) responseObserver);
          break;
        case METHODID_LIST_GUARDRAILS:
          serviceImpl.listGuardrails((dev.outrider.v1.ListGuardrailsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListGuardrailsResponse>) responseObserver);
          break;
        case METHODID_RELOAD_POLICY:
          serviceImpl.reloadPolicy((dev.outrider.v1.ReloadPolicyRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ReloadPolicyResponse>) responseObserver);
          break;
        case METHODID_LIST_DECISIONS:
          serviceImpl.listDecisions((dev.outrider.v1.ListDecisionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListDecisionsResponse>) responseObserver);
          break;
        case METHODID_GET_APPROVAL:
          serviceImpl.getApproval((dev.outrider.v1.GetApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.GetApprovalResponse>) responseObserver);
          break;
        case METHODID_WATCH_APPROVAL:
          serviceImpl.watchApproval((dev.outrider.v1.WatchApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.WatchApprovalResponse>) responseObserver);
          break;
        case METHODID_LIST_APPROVALS:
          serviceImpl.listApprovals((dev.outrider.v1.ListApprovalsRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListApprovalsResponse>) responseObserver);
          break;
        case METHODID_DECIDE_APPROVAL:
          serviceImpl.decideApproval((dev.outrider.v1.DecideApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.DecideApprovalResponse>) responseObserver);
          break;
        case METHODID_CANCEL_APPROVAL:
          serviceImpl.cancelApproval((dev.outrider.v1.CancelApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.CancelApprovalResponse>) responseObserver);
          break;
        case METHODID_ADD_APPROVAL_PATTERN:
          serviceImpl.addApprovalPattern((dev.outrider.v1.AddApprovalPatternRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.AddApprovalPatternResponse>) responseObserver);
          break;
        case METHODID_REMOVE_APPROVAL_PATTERN:
          serviceImpl.removeApprovalPattern((dev.outrider.v1.RemoveApprovalPatternRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RemoveApprovalPatternResponse>) responseObserver);
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
        case METHODID_CHECK_ACTIONS:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.checkActions(
              (io.grpc.stub.StreamObserver<dev.outrider.v1.CheckActionsResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getRegisterAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RegisterAgentRequest,
              dev.outrider.v1.RegisterAgentResponse>(
                service, METHODID_REGISTER_AGENT)))
        .addMethod(
          getDeregisterAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.DeregisterAgentRequest,
              dev.outrider.v1.DeregisterAgentResponse>(
                service, METHODID_DEREGISTER_AGENT)))
        .addMethod(
          getGetAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetAgentRequest,
              dev.outrider.v1.GetAgentResponse>(
                service, METHODID_GET_AGENT)))
        .addMethod(
          getListAgentsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListAgentsRequest,
              dev.outrider.v1.ListAgentsResponse>(
                service, METHODID_LIST_AGENTS)))
        .addMethod(
          getCheckActionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.CheckActionRequest,
              dev.outrider.v1.CheckActionResponse>(
                service, METHODID_CHECK_ACTION)))
        .addMethod(
          getCheckActionsMethod(),
          io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
            new MethodHandlers<
              dev.outrider.v1.CheckActionsRequest,
              dev.outrider.v1.CheckActionsResponse>(
                service, METHODID_CHECK_ACTIONS)))
        .addMethod(
          getExplainActionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ExplainActionRequest,
              dev.outrider.v1.ExplainActionResponse>(
                service, METHODID_EXPLAIN_ACTION)))
        .addMethod(
          getAddGuardrailMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AddGuardrailRequest,
              dev.outrider.v1.AddGuardrailResponse>(
                service, METHODID_ADD_GUARDRAIL)))
        .addMethod(
          getRemoveGuardrailMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RemoveGuardrailRequest,
              dev.outrider.v1.RemoveGuardrailResponse>(
                service, METHODID_REMOVE_GUARDRAIL)))
        .addMethod(
          getListGuardrailsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListGuardrailsRequest,
              dev.outrider.v1.ListGuardrailsResponse>(
                service, METHODID_LIST_GUARDRAILS)))
        .addMethod(
          getReloadPolicyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ReloadPolicyRequest,
              dev.outrider.v1.ReloadPolicyResponse>(
                service, METHODID_RELOAD_POLICY)))
        .addMethod(
          getListDecisionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListDecisionsRequest,
              dev.outrider.v1.ListDecisionsResponse>(
                service, METHODID_LIST_DECISIONS)))
        .addMethod(
          getGetApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.GetApprovalRequest,
              dev.outrider.v1.GetApprovalResponse>(
                service, METHODID_GET_APPROVAL)))
        .addMethod(
          getWatchApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.outrider.v1.WatchApprovalRequest,
              dev.outrider.v1.WatchApprovalResponse>(
                service, METHODID_WATCH_APPROVAL)))
        .addMethod(
          getListApprovalsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListApprovalsRequest,
              dev.outrider.v1.ListApprovalsResponse>(
                service, METHODID_LIST_APPROVALS)))
        .addMethod(
          getDecideApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.DecideApprovalRequest,
              dev.outrider.v1.DecideApprovalResponse>(
                service, METHODID_DECIDE_APPROVAL)))
        .addMethod(
          getCancelApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.CancelApprovalRequest,
              dev.outrider.v1.CancelApprovalResponse>(
                service, METHODID_CANCEL_APPROVAL)))
        .addMethod(
          getAddApprovalPatternMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.AddApprovalPatternRequest,
              dev.outrider.v1.AddApprovalPatternResponse>(
                service, METHODID_ADD_APPROVAL_PATTERN)))
        .addMethod(
          getRemoveApprovalPatternMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RemoveApprovalPatternRequest,
              dev.outrider.v1.RemoveApprovalPatternResponse>(
                service, METHODID_REMOVE_APPROVAL_PATTERN)))
        .build();
  }

  private static abstract class SupervisorServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    SupervisorServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.outrider.v1.SupervisorServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("SupervisorService");
    }
  }

  private static final class SupervisorServiceFileDescriptorSupplier
      extends SupervisorServiceBaseDescriptorSupplier {
    SupervisorServiceFileDescriptorSupplier() {}
  }

  private static final class SupervisorServiceMethodDescriptorSupplier
      extends SupervisorServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    SupervisorServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (SupervisorServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new SupervisorServiceFileDescriptorSupplier())
              .addMethod(getRegisterAgentMethod())
              .addMethod(getDeregisterAgentMethod())
              .addMethod(getGetAgentMethod())
              .addMethod(getListAgentsMethod())
              .addMethod(getCheckActionMethod())
              .addMethod(getCheckActionsMethod())
              .addMethod(getExplainActionMethod())
              .addMethod(getAddGuardrailMethod())
              .addMethod(getRemoveGuardrailMethod())
              .addMethod(getListGuardrailsMethod())
              .addMethod(getReloadPolicyMethod())
              .addMethod(getListDecisionsMethod())
              .addMethod(getGetApprovalMethod())
              .addMethod(getWatchApprovalMethod())
              .addMethod(getListApprovalsMethod())
              .addMethod(getDecideApprovalMethod())
              .addMethod(getCancelApprovalMethod())
              .addMethod(getAddApprovalPatternMethod())
              .addMethod(getRemoveApprovalPatternMethod())
              .build();
        }
      }
    }
    return result;
  }
}
