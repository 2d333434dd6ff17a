package dev.outrider.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionResponse;
import dev.outrider.v1.GetAgentRequest;
import dev.outrider.v1.GetAgentResponse;
import dev.outrider.v1.SupervisorServiceGrpc;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** OutriderClient against an in-process fake sidecar. */
class OutriderClientTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> AUTH_SEEN = Context.key("authorization");

  /** Holds the first {@code hold} CheckAction calls until their deadline, as a pending approval does. */
  static final class FakeSupervisor extends SupervisorServiceGrpc.SupervisorServiceImplBase {
    volatile int hold;
    final List<String> requestIds = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<Boolean> deadlines = new CopyOnWriteArrayList<>();

    @Override
    public void checkAction(CheckActionRequest request, StreamObserver<CheckActionResponse> out) {
      requestIds.add(request.getRequestId());
      authorizations.add(String.valueOf(AUTH_SEEN.get()));
      deadlines.add(Context.current().getDeadline() != null);
      if (requestIds.size() <= hold) {
        CountDownLatch done = new CountDownLatch(1);
        Context.current().addListener(c -> done.countDown(), Runnable::run);
        try {
          done.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        out.onError(Status.DEADLINE_EXCEEDED.asRuntimeException());
        return;
      }
      out.onNext(CheckActionResponse.newBuilder().setAllowed(true).setReason("approved").build());
      out.onCompleted();
    }

    @Override
    public void getAgent(GetAgentRequest request, StreamObserver<GetAgentResponse> out) {
      ErrorInfo info = ErrorInfo.newBuilder().setReason("NOT_FOUND").setDomain("outrider.dev")
          .putMetadata("field", "agent_id").build();
      out.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
          .setCode(Status.Code.NOT_FOUND.value()).setMessage("no agent is named " + request.getAgentId())
          .addDetails(Any.pack(info)).build()));
    }
  }

  private final FakeSupervisor fake = new FakeSupervisor();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor recordAuth = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        return Contexts.interceptCall(Context.current().withValue(AUTH_SEEN, headers.get(AUTHORIZATION)), call, headers, next);
      }
    };
    server = InProcessServerBuilder.forName(name)
        .addService(ServerInterceptors.intercept(fake, recordAuth)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  @Test
  void checkActionReattachesWithTheSameRequestId() {
    fake.hold = 2;
    OutriderClient client = OutriderClient.builder().channel(channel).token("otr_secret")
        .timeout(Duration.ofMillis(100)).build();
    CheckActionResponse r = client.checkAction(CheckActionRequest.newBuilder().setAgentId("a").setAction("deploy").build());
    assertTrue(r.getAllowed());
    assertEquals("approved", r.getReason());
    assertEquals(3, fake.requestIds.size());
    assertTrue(fake.requestIds.get(0).matches("[0-9a-f]{32}"));
    assertEquals(1, fake.requestIds.stream().distinct().count());
    assertEquals(List.of("Bearer otr_secret", "Bearer otr_secret", "Bearer otr_secret"), fake.authorizations);
  }

  @Test
  void checkActionKeepsTheCallersRequestIdAndStopsAfterMaxWait() {
    fake.hold = 1000;
    OutriderClient client = OutriderClient.builder().channel(channel).timeout(Duration.ofMillis(100)).build();
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> client.checkAction(
        CheckActionRequest.newBuilder().setAgentId("a").setAction("deploy").setRequestId("mine").build(),
        Duration.ofMillis(1000)));
    assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
    assertTrue(fake.requestIds.size() >= 2 && fake.requestIds.size() <= 11, fake.requestIds.size() + " attempts");
    assertTrue(fake.requestIds.stream().allMatch("mine"::equals));
    assertTrue(fake.authorizations.stream().allMatch("null"::equals));
  }

  @Test
  void callsGetTheDefaultDeadlineAndErrorsTheirErrorInfo() {
    OutriderClient client = OutriderClient.builder().channel(channel).build();
    client.supervisor().checkAction(CheckActionRequest.getDefaultInstance());
    assertEquals(List.of(true), fake.deadlines);
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
        () -> client.supervisor().getAgent(GetAgentRequest.newBuilder().setAgentId("ghost").build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    ErrorInfo info = OutriderClient.errorInfo(e).orElse(null);
    assertNotNull(info);
    assertEquals("NOT_FOUND", info.getReason());
    assertEquals("agent_id", info.getMetadataOrThrow("field"));
    assertFalse(OutriderClient.errorInfo(new IllegalStateException("plain")).isPresent());
  }
}
