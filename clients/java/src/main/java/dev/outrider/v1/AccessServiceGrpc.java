package dev.outrider.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Credentials: who may call what. Every call to every service carries a bearer token in the
 * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
 * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
 * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
 * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
 * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AccessServiceGrpc {

  private AccessServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "outrider.v1.AccessService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.WhoAmIRequest,
      dev.outrider.v1.WhoAmIResponse> getWhoAmIMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WhoAmI",
      requestType = dev.outrider.v1.WhoAmIRequest.class,
      responseType = dev.outrider.v1.WhoAmIResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.WhoAmIRequest,
      dev.outrider.v1.WhoAmIResponse> getWhoAmIMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.WhoAmIRequest, dev.outrider.v1.WhoAmIResponse> getWhoAmIMethod;
    if ((getWhoAmIMethod = AccessServiceGrpc.getWhoAmIMethod) == null) {
      synchronized (AccessServiceGrpc.class) {
        if ((getWhoAmIMethod = AccessServiceGrpc.getWhoAmIMethod) == null) {
          AccessServiceGrpc.getWhoAmIMethod = getWhoAmIMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.WhoAmIRequest, dev.outrider.v1.WhoAmIResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WhoAmI"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WhoAmIRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.WhoAmIResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AccessServiceMethodDescriptorSupplier("WhoAmI"))
              .build();
        }
      }
    }
    return getWhoAmIMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.IssueTokenRequest,
      dev.outrider.v1.IssueTokenResponse> getIssueTokenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "IssueToken",
      requestType = dev.outrider.v1.IssueTokenRequest.class,
      responseType = dev.outrider.v1.IssueTokenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.IssueTokenRequest,
      dev.outrider.v1.IssueTokenResponse> getIssueTokenMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.IssueTokenRequest, dev.outrider.v1.IssueTokenResponse> getIssueTokenMethod;
    if ((getIssueTokenMethod = AccessServiceGrpc.getIssueTokenMethod) == null) {
      synchronized (AccessServiceGrpc.class) {
        if ((getIssueTokenMethod = AccessServiceGrpc.getIssueTokenMethod) == null) {
          AccessServiceGrpc.getIssueTokenMethod = getIssueTokenMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.IssueTokenRequest, dev.outrider.v1.IssueTokenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "IssueToken"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.IssueTokenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.IssueTokenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AccessServiceMethodDescriptorSupplier("IssueToken"))
              .build();
        }
      }
    }
    return getIssueTokenMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RevokeTokenRequest,
      dev.outrider.v1.RevokeTokenResponse> getRevokeTokenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeToken",
      requestType = dev.outrider.v1.RevokeTokenRequest.class,
      responseType = dev.outrider.v1.RevokeTokenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RevokeTokenRequest,
      dev.outrider.v1.RevokeTokenResponse> getRevokeTokenMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RevokeTokenRequest, dev.outrider.v1.RevokeTokenResponse> getRevokeTokenMethod;
    if ((getRevokeTokenMethod = AccessServiceGrpc.getRevokeTokenMethod) == null) {
      synchronized (AccessServiceGrpc.class) {
        if ((getRevokeTokenMethod = AccessServiceGrpc.getRevokeTokenMethod) == null) {
          AccessServiceGrpc.getRevokeTokenMethod = getRevokeTokenMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RevokeTokenRequest, dev.outrider.v1.RevokeTokenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeToken"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RevokeTokenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RevokeTokenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AccessServiceMethodDescriptorSupplier("RevokeToken"))
              .build();
        }
      }
    }
    return getRevokeTokenMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.RevokeCertificateRequest,
      dev.outrider.v1.RevokeCertificateResponse> getRevokeCertificateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeCertificate",
      requestType = dev.outrider.v1.RevokeCertificateRequest.class,
      responseType = dev.outrider.v1.RevokeCertificateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.RevokeCertificateRequest,
      dev.outrider.v1.RevokeCertificateResponse> getRevokeCertificateMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.RevokeCertificateRequest, dev.outrider.v1.RevokeCertificateResponse> getRevokeCertificateMethod;
    if ((getRevokeCertificateMethod = AccessServiceGrpc.getRevokeCertificateMethod) == null) {
      synchronized (AccessServiceGrpc.class) {
        if ((getRevokeCertificateMethod = AccessServiceGrpc.getRevokeCertificateMethod) == null) {
          AccessServiceGrpc.getRevokeCertificateMethod = getRevokeCertificateMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.RevokeCertificateRequest, dev.outrider.v1.RevokeCertificateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeCertificate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RevokeCertificateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.RevokeCertificateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AccessServiceMethodDescriptorSupplier("RevokeCertificate"))
              .build();
        }
      }
    }
    return getRevokeCertificateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.outrider.v1.ListTokensRequest,
      dev.outrider.v1.ListTokensResponse> getListTokensMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTokens",
      requestType = dev.outrider.v1.ListTokensRequest.class,
      responseType = dev.outrider.v1.ListTokensResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.outrider.v1.ListTokensRequest,
      dev.outrider.v1.ListTokensResponse> getListTokensMethod() {
    io.grpc.MethodDescriptor<dev.outrider.v1.ListTokensRequest, dev.outrider.v1.ListTokensResponse> getListTokensMethod;
    if ((getListTokensMethod = AccessServiceGrpc.getListTokensMethod) == null) {
      synchronized (AccessServiceGrpc.class) {
        if ((getListTokensMethod = AccessServiceGrpc.getListTokensMethod) == null) {
          AccessServiceGrpc.getListTokensMethod = getListTokensMethod =
              io.grpc.MethodDescriptor.<dev.outrider.v1.ListTokensRequest, dev.outrider.v1.ListTokensResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTokens"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListTokensRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.outrider.v1.ListTokensResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AccessServiceMethodDescriptorSupplier("ListTokens"))
              .build();
        }
      }
    }
    return getListTokensMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AccessServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AccessServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AccessServiceStub>() {
        @java.lang.Override
        public AccessServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AccessServiceStub(channel, callOptions);
        }
      };
    return AccessServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AccessServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AccessServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AccessServiceBlockingV2Stub>() {
        @java.lang.Override
        public AccessServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AccessServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AccessServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AccessServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AccessServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AccessServiceBlockingStub>() {
        @java.lang.Override
        public AccessServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AccessServiceBlockingStub(channel, callOptions);
        }
      };
    return AccessServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AccessServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AccessServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AccessServiceFutureStub>() {
        @java.lang.Override
        public AccessServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AccessServiceFutureStub(channel, callOptions);
        }
      };
    return AccessServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Who the caller's credential speaks for. Any valid credential.
     * </pre>
     */
    default void whoAmI(dev.outrider.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWhoAmIMethod(), responseObserver);
    }

    /**
     * <pre>
     * Issues a token; the secret is in the response only. Admin credential
     * only (PERMISSION_DENIED, reason ADMIN_REQUIRED, for ordinary operators:
     * one person must not be able to become two reviewers).
     * INVALID_ARGUMENT: no kind, empty or malformed subject.
     * </pre>
     */
    default void issueToken(dev.outrider.v1.IssueTokenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.IssueTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIssueTokenMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revokes a token at once. Admin credential only. NOT_FOUND: unknown
     * token_id; FAILED_PRECONDITION: already revoked.
     * </pre>
     */
    default void revokeToken(dev.outrider.v1.RevokeTokenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeTokenMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revokes an mTLS client certificate by the SHA-256 of its DER encoding:
     * from then on it is refused (UNAUTHENTICATED, reason CERTIFICATE_REVOKED) by
     * every process on the database (others within 250 ms). Admin credential
     * only. INVALID_ARGUMENT: not 64 hex digits (colons allowed).
     * FAILED_PRECONDITION (ALREADY_REVOKED): revoked before.
     * </pre>
     */
    default void revokeCertificate(dev.outrider.v1.RevokeCertificateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeCertificateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeCertificateMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists tokens (never their secrets), newest first. Operator only. Paginated.
     * </pre>
     */
    default void listTokens(dev.outrider.v1.ListTokensRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListTokensResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTokensMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AccessService.
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public static abstract class AccessServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AccessServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AccessService.
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public static final class AccessServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AccessServiceStub> {
    private AccessServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AccessServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AccessServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Who the caller's credential speaks for. Any valid credential.
     * </pre>
     */
    public void whoAmI(dev.outrider.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Issues a token; the secret is in the response only. Admin credential
     * only (PERMISSION_DENIED, reason ADMIN_REQUIRED, for ordinary operators:
     * one person must not be able to become two reviewers).
     * INVALID_ARGUMENT: no kind, empty or malformed subject.
     * </pre>
     */
    public void issueToken(dev.outrider.v1.IssueTokenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.IssueTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIssueTokenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revokes a token at once. Admin credential only. NOT_FOUND: unknown
     * token_id; FAILED_PRECONDITION: already revoked.
     * </pre>
     */
    public void revokeToken(dev.outrider.v1.RevokeTokenRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeTokenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revokes an mTLS client certificate by the SHA-256 of its DER encoding:
     * from then on it is refused (UNAUTHENTICATED, reason CERTIFICATE_REVOKED) by
     * every process on the database (others within 250 ms). Admin credential
     * only. INVALID_ARGUMENT: not 64 hex digits (colons allowed).
     * FAILED_PRECONDITION (ALREADY_REVOKED): revoked before.
     * </pre>
     */
    public void revokeCertificate(dev.outrider.v1.RevokeCertificateRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeCertificateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeCertificateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists tokens (never their secrets), newest first. Operator only. Paginated.
     * </pre>
     */
    public void listTokens(dev.outrider.v1.ListTokensRequest request,
        io.grpc.stub.StreamObserver<dev.outrider.v1.ListTokensResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTokensMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AccessService.
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public static final class AccessServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AccessServiceBlockingV2Stub> {
    private AccessServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AccessServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AccessServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Who the caller's credential speaks for. Any valid credential.
     * </pre>
     */
    public dev.outrider.v1.WhoAmIResponse whoAmI(dev.outrider.v1.WhoAmIRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getWhoAmIMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Issues a token; the secret is in the response only. Admin credential
     * only (PERMISSION_DENIED, reason ADMIN_REQUIRED, for ordinary operators:
     * one person must not be able to become two reviewers).
     * INVALID_ARGUMENT: no kind, empty or malformed subject.
     * </pre>
     */
    public dev.outrider.v1.IssueTokenResponse issueToken(dev.outrider.v1.IssueTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getIssueTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes a token at once. Admin credential only. NOT_FOUND: unknown
     * token_id; FAILED_PRECONDITION: already revoked.
     * </pre>
     */
    public dev.outrider.v1.RevokeTokenResponse revokeToken(dev.outrider.v1.RevokeTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes an mTLS client certificate by the SHA-256 of its DER encoding:
     * from then on it is refused (UNAUTHENTICATED, reason CERTIFICATE_REVOKED) by
     * every process on the database (others within 250 ms). Admin credential
     * only. INVALID_ARGUMENT: not 64 hex digits (colons allowed).
     * FAILED_PRECONDITION (ALREADY_REVOKED): revoked before.
     * </pre>
     */
    public dev.outrider.v1.RevokeCertificateResponse revokeCertificate(dev.outrider.v1.RevokeCertificateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeCertificateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tokens (never their secrets), newest first. Operator only. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListTokensResponse listTokens(dev.outrider.v1.ListTokensRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTokensMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AccessService.
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public static final class AccessServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AccessServiceBlockingStub> {
    private AccessServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AccessServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AccessServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Who the caller's credential speaks for. Any valid credential.
     * </pre>
     */
    public dev.outrider.v1.WhoAmIResponse whoAmI(dev.outrider.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getWhoAmIMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Issues a token; the secret is in the response only. Admin credential
     * only (PERMISSION_DENIED, reason ADMIN_REQUIRED, for ordinary operators:
     * one person must not be able to become two reviewers).
     * INVALID_ARGUMENT: no kind, empty or malformed subject.
     * </pre>
     */
    public dev.outrider.v1.IssueTokenResponse issueToken(dev.outrider.v1.IssueTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIssueTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes a token at once. Admin credential only. NOT_FOUND: unknown
     * token_id; FAILED_PRECONDITION: already revoked.
     * </pre>
     */
    public dev.outrider.v1.RevokeTokenResponse revokeToken(dev.outrider.v1.RevokeTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes an mTLS client certificate by the SHA-256 of its DER encoding:
     * from then on it is refused (UNAUTHENTICATED, reason CERTIFICATE_REVOKED) by
     * every process on the database (others within 250 ms). Admin credential
     * only. INVALID_ARGUMENT: not 64 hex digits (colons allowed).
     * FAILED_PRECONDITION (ALREADY_REVOKED): revoked before.
     * </pre>
     */
    public dev.outrider.v1.RevokeCertificateResponse revokeCertificate(dev.outrider.v1.RevokeCertificateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeCertificateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tokens (never their secrets), newest first. Operator only. Paginated.
     * </pre>
     */
    public dev.outrider.v1.ListTokensResponse listTokens(dev.outrider.v1.ListTokensRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTokensMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AccessService.
   * <pre>
   * Credentials: who may call what. Every call to every service carries a bearer token in the
   * `authorization: Bearer &lt;token&gt;` metadata, or a client certificate when mTLS is on.
   * Missing or unknown credential: UNAUTHENTICATED. Right credential, wrong scope: PERMISSION_DENIED.
   * Over the per-credential rate limit: RESOURCE_EXHAUSTED. A credential of a
   * killed agent: PERMISSION_DENIED with reason AGENT_TERMINATED on every RPC
   * (CheckAction answers BLOCK instead) until an operator reinstates the agent.
   * </pre>
   */
  public static final class AccessServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AccessServiceFutureStub> {
    private AccessServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AccessServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AccessServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Who the caller's credential speaks for. Any valid credential.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.WhoAmIResponse> whoAmI(
        dev.outrider.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Issues a token; the secret is in the response only. Admin credential
     * only (PERMISSION_DENIED, reason ADMIN_REQUIRED, for ordinary operators:
     * one person must not be able to become two reviewers).
     * INVALID_ARGUMENT: no kind, empty or malformed subject.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.IssueTokenResponse> issueToken(
        dev.outrider.v1.IssueTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIssueTokenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revokes a token at once. Admin credential only. NOT_FOUND: unknown
     * token_id; FAILED_PRECONDITION: already revoked.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RevokeTokenResponse> revokeToken(
        dev.outrider.v1.RevokeTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeTokenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revokes an mTLS client certificate by the SHA-256 of its DER encoding:
     * from then on it is refused (UNAUTHENTICATED, reason CERTIFICATE_REVOKED) by
     * every process on the database (others within 250 ms). Admin credential
     * only. INVALID_ARGUMENT: not 64 hex digits (colons allowed).
     * FAILED_PRECONDITION (ALREADY_REVOKED): revoked before.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.RevokeCertificateResponse> revokeCertificate(
        dev.outrider.v1.RevokeCertificateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeCertificateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists tokens (never their secrets), newest first. Operator only. Paginated.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.outrider.v1.ListTokensResponse> listTokens(
        dev.outrider.v1.ListTokensRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTokensMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_WHO_AM_I = 0;
  private static final int METHODID_ISSUE_TOKEN = 1;
  private static final int METHODID_REVOKE_TOKEN = 2;
  private static final int METHODID_REVOKE_CERTIFICATE = 3;
  private static final int METHODID_LIST_TOKENS = 4;

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
        case METHODID_WHO_AM_I:
          serviceImpl.whoAmI((dev.outrider.v1.WhoAmIRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.WhoAmIResponse>) responseObserver);
          break;
        case METHODID_ISSUE_TOKEN:
          serviceImpl.issueToken((dev.outrider.v1.IssueTokenRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.IssueTokenResponse>) responseObserver);
          break;
        case METHODID_REVOKE_TOKEN:
          serviceImpl.revokeToken((dev.outrider.v1.RevokeTokenRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeTokenResponse>) responseObserver);
          break;
        case METHODID_REVOKE_CERTIFICATE:
          serviceImpl.revokeCertificate((dev.outrider.v1.RevokeCertificateRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.RevokeCertificateResponse>) responseObserver);
          break;
        case METHODID_LIST_TOKENS:
          serviceImpl.listTokens((dev.outrider.v1.ListTokensRequest) request,
              (io.grpc.stub.StreamObserver<dev.outrider.v1.ListTokensResponse>) responseObserver);
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
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getWhoAmIMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.WhoAmIRequest,
              dev.outrider.v1.WhoAmIResponse>(
                service, METHODID_WHO_AM_I)))
        .addMethod(
          getIssueTokenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.IssueTokenRequest,
              dev.outrider.v1.IssueTokenResponse>(
                service, METHODID_ISSUE_TOKEN)))
        .addMethod(
          getRevokeTokenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RevokeTokenRequest,
              dev.outrider.v1.RevokeTokenResponse>(
                service, METHODID_REVOKE_TOKEN)))
        .addMethod(
          getRevokeCertificateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.RevokeCertificateRequest,
              dev.outrider.v1.RevokeCertificateResponse>(
                service, METHODID_REVOKE_CERTIFICATE)))
        .addMethod(
          getListTokensMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.outrider.v1.ListTokensRequest,
              dev.outrider.v1.ListTokensResponse>(
                service, METHODID_LIST_TOKENS)))
        .build();
  }

  private static abstract class AccessServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AccessServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.outrider.v1.AccessServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AccessService");
    }
  }

  private static final class AccessServiceFileDescriptorSupplier
      extends AccessServiceBaseDescriptorSupplier {
    AccessServiceFileDescriptorSupplier() {}
  }

  private static final class AccessServiceMethodDescriptorSupplier
      extends AccessServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AccessServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AccessServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AccessServiceFileDescriptorSupplier())
              .addMethod(getWhoAmIMethod())
              .addMethod(getIssueTokenMethod())
              .addMethod(getRevokeTokenMethod())
              .addMethod(getRevokeCertificateMethod())
              .addMethod(getListTokensMethod())
              .build();
        }
      }
    }
    return result;
  }
}
