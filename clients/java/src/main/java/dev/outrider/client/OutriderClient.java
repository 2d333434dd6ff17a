package dev.outrider.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import dev.outrider.v1.AccessServiceGrpc;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionResponse;
import dev.outrider.v1.RecoveryServiceGrpc;
import dev.outrider.v1.SafeguardServiceGrpc;
import dev.outrider.v1.SupervisorServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A thin client for the Outrider sidecar over the generated {@code dev.outrider.v1} stubs: the default
 * address, the bearer token on every call, a default deadline, {@link #checkAction} that
 * re-attaches by request id after a deadline, and {@link #checkStream} for many checks on one stream.
 *
 * <pre>{@code
 * try (OutriderClient client = OutriderClient.builder().token(System.getenv("OUTRIDER_TOKEN")).build()) {
 *   CheckActionResponse r = client.checkAction(CheckActionRequest.newBuilder()
 *       .setAgentId("release-agent").setAction("deploy").build());
 * }
 * }</pre>
 */
public final class OutriderClient implements AutoCloseable {
  /** Where {@code outrider serve} listens unless told otherwise. */
  public static final String DEFAULT_ADDRESS = "127.0.0.1:50051";
  /** The deadline of each call made through the stubs of this client. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel managed;
  private final boolean ownsChannel;
  private final Channel channel;
  private final Duration timeout;

  private OutriderClient(ManagedChannel managed, boolean ownsChannel, String token, Duration timeout) {
    this.managed = managed;
    this.ownsChannel = ownsChannel;
    this.channel = token == null || token.isEmpty() ? managed : ClientInterceptors.intercept(managed, bearer(token));
    this.timeout = timeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Blocking stub with the client's deadline, counted from now: take a fresh one per call. */
  public SupervisorServiceGrpc.SupervisorServiceBlockingStub supervisor() {
    return SupervisorServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public RecoveryServiceGrpc.RecoveryServiceBlockingStub recovery() {
    return RecoveryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public SafeguardServiceGrpc.SafeguardServiceBlockingStub safeguard() {
    return SafeguardServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public AccessServiceGrpc.AccessServiceBlockingStub access() {
    return AccessServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The channel with the token attached, for async stubs and streams (no default deadline there). */
  public Channel channel() {
    return channel;
  }

  /**
   * A {@link CheckStream}: many checks, from any number of threads, on one CheckActions stream with
   * this client's token (no deadline on the stream; each check waits as long as its caller lets it).
   * The stream is opened by the first check.
   */
  public CheckStream checkStream() {
    return new CheckStream(channel);
  }

  /** Same as {@code checkAction(request, null)}: re-attaches for as long as the sidecar holds the call. */
  public CheckActionResponse checkAction(CheckActionRequest request) {
    return checkAction(request, null);
  }

  /**
   * "May this agent do this action?" A block is an answer ({@code getAllowed() == false}), not an error.
   *
   * <p>Each attempt has the client's timeout. When an attempt runs out of time (the sidecar may be
   * holding the call for a human approval), the same request, with the same request id, is sent
   * again and re-attaches to its pending decision, until {@code maxWait} (null: no limit) has passed.
   * A request without a request id gets a random one first.
   *
   * @throws StatusRuntimeException when the sidecar could not answer (see {@link #errorInfo})
   */
  public CheckActionResponse checkAction(CheckActionRequest request, Duration maxWait) {
    CheckActionRequest req =
        request.getRequestId().isEmpty() ? request.toBuilder().setRequestId(newRequestId()).build() : request;
    long start = System.nanoTime();
    while (true) {
      try {
        return supervisor().checkAction(req);
      } catch (StatusRuntimeException e) {
        boolean timedOut = e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED;
        boolean waited = maxWait != null && System.nanoTime() - start >= maxWait.toNanos();
        if (!timedOut || waited || Thread.currentThread().isInterrupted()) {
          throw e;
        }
      }
    }
  }

  /** A random idempotency key (32 hex characters). */
  public static String newRequestId() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  /**
   * The google.rpc.ErrorInfo (domain "outrider.dev") of an error from the sidecar: {@code getReason()}
   * is a stable word such as INVALID_FIELD or NOT_FOUND; metadata "field" names the offending request
   * field, when there is one.
   */
  public static Optional<ErrorInfo> errorInfo(Throwable error) {
    com.google.rpc.Status status = StatusProto.fromThrowable(error);
    if (status == null) {
      return Optional.empty();
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(ErrorInfo.class)) {
        try {
          return Optional.of(detail.unpack(ErrorInfo.class));
        } catch (InvalidProtocolBufferException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** Shuts the channel down, unless it was given to the builder. */
  @Override
  public void close() {
    if (!ownsChannel) {
      return;
    }
    managed.shutdown();
    try {
      if (!managed.awaitTermination(5, TimeUnit.SECONDS)) {
        managed.shutdownNow();
      }
    } catch (InterruptedException e) {
      managed.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static ClientInterceptor bearer(String token) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(AUTHORIZATION, "Bearer " + token);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  public static final class Builder {
    private String address = DEFAULT_ADDRESS;
    private String token;
    private Duration timeout = DEFAULT_TIMEOUT;
    private ManagedChannel channel;

    private Builder() {}

    /** "host:port", plaintext (default 127.0.0.1:50051). For TLS, build the channel and pass it to {@link #channel}. */
    public Builder address(String address) {
      this.address = address == null || address.isEmpty() ? DEFAULT_ADDRESS : address;
      return this;
    }

    /** Sent as {@code authorization: Bearer <token>} on every call; the sidecar requires a credential. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** Deadline of each call (default 10 s); for checkAction, of one attempt. */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive");
      }
      this.timeout = timeout;
      return this;
    }

    /** Use this channel instead of opening one; {@link #close} then leaves it open. */
    public Builder channel(ManagedChannel channel) {
      this.channel = channel;
      return this;
    }

    public OutriderClient build() {
      if (channel != null) {
        return new OutriderClient(channel, false, token, timeout);
      }
      return new OutriderClient(ManagedChannelBuilder.forTarget(address).usePlaintext().build(), true, token, timeout);
    }
  }
}
