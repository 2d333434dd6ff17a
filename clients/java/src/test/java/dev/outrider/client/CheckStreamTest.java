package dev.outrider.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionResponse;
import dev.outrider.v1.CheckActionsError;
import dev.outrider.v1.CheckActionsRequest;
import dev.outrider.v1.CheckActionsResponse;
import dev.outrider.v1.SupervisorServiceGrpc;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CheckStream against an in-process fake of SupervisorService.CheckActions. */
class CheckStreamTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * Answers as the sidecar does, in its own order, matched by id: holds every answer until {@code batch}
   * requests have come (or the client half-closes), then answers them newest first. An action "error"
   * gets an INVALID_ARGUMENT error answer; an agent "intruder" ends the stream with PERMISSION_DENIED.
   */
  static final class FakeStreams extends SupervisorServiceGrpc.SupervisorServiceImplBase {
    volatile int batch = 1;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<CheckActionsRequest> requests = new CopyOnWriteArrayList<>();
    final Semaphore arrived = new Semaphore(0);

    @Override
    public StreamObserver<CheckActionsRequest> checkActions(StreamObserver<CheckActionsResponse> out) {
      List<CheckActionsRequest> held = new ArrayList<>();
      return new StreamObserver<>() {
        @Override
        public void onNext(CheckActionsRequest req) {
          requests.add(req);
          arrived.release();
          if (req.getCheck().getAgentId().equals("intruder")) {
            ErrorInfo info = ErrorInfo.newBuilder().setReason("NOT_YOUR_AGENT").setDomain("outrider.dev")
                .putMetadata("field", "check.agent_id").build();
            out.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                .setCode(Status.Code.PERMISSION_DENIED.value()).setMessage("this credential is not agent intruder")
                .addDetails(Any.pack(info)).build()));
            return;
          }
          held.add(req);
          if (held.size() >= batch) {
            flush();
          }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          flush();
          out.onCompleted();
        }

        private void flush() {
          for (int i = held.size() - 1; i >= 0; i--) {
            out.onNext(answer(held.get(i)));
          }
          held.clear();
        }
      };
    }

    private static CheckActionsResponse answer(CheckActionsRequest req) {
      CheckActionsResponse.Builder b = CheckActionsResponse.newBuilder().setId(req.getId());
      if (req.getCheck().getAction().equals("error")) {
        return b.setError(CheckActionsError.newBuilder().setCode(3).setMessage("action must not be empty")
            .setReason("INVALID_FIELD").setField("check.action")).build();
      }
      return b.setResponse(CheckActionResponse.newBuilder().setAllowed(true).setReason(req.getCheck().getAction())).build();
    }
  }

  private final FakeStreams fake = new FakeStreams();
  private Server server;
  private ManagedChannel channel;
  private OutriderClient client;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor recordAuth = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        fake.authorizations.add(String.valueOf(headers.get(AUTHORIZATION)));
        return next.startCall(call, headers);
      }
    };
    server = InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(fake, recordAuth)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    client = OutriderClient.builder().channel(channel).token("otr_secret").build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private static CheckActionRequest check(String agent, String action) {
    return CheckActionRequest.newBuilder().setAgentId(agent).setAction(action).build();
  }

  @Test
  void matchesOutOfOrderAnswersToConcurrentCallers() throws Exception {
    int n = 8;
    fake.batch = n;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try (CheckStream stream = client.checkStream()) {
      List<Future<CheckActionResponse>> answers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String action = "action-" + i;
        answers.add(pool.submit(() -> stream.checkSync(check("a", action), Duration.ofSeconds(10))));
      }
      for (int i = 0; i < n; i++) {
        CheckActionResponse r = answers.get(i).get(10, TimeUnit.SECONDS);
        assertTrue(r.getAllowed());
        assertEquals("action-" + i, r.getReason());
      }
    } finally {
      pool.shutdownNow();
    }
    List<Long> ids = fake.requests.stream().map(CheckActionsRequest::getId).sorted().collect(Collectors.toList());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), ids);
    assertEquals(List.of("Bearer otr_secret"), fake.authorizations, "one stream, with the token");
    assertTrue(fake.requests.stream().allMatch(r -> r.getCheck().getRequestId().matches("[0-9a-f]{32}")));
  }

  @Test
  void anErrorAnswerFailsOnlyThatCheckAsTheUnaryCallWould() {
    try (CheckStream stream = client.checkStream()) {
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stream.checkSync(check("a", "error")));
      assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
      assertEquals("action must not be empty", e.getStatus().getDescription());
      ErrorInfo info = OutriderClient.errorInfo(e).orElse(null);
      assertNotNull(info);
      assertEquals("INVALID_FIELD", info.getReason());
      assertEquals("outrider.dev", info.getDomain());
      assertEquals("action", info.getMetadataOrThrow("field"));

      String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      CheckActionResponse r = stream.check(check("a", "deploy").toBuilder().setRequestId("mine").build(), traceparent).join();
      assertEquals("deploy", r.getReason());
      CheckActionsRequest last = fake.requests.get(fake.requests.size() - 1);
      assertEquals("mine", last.getCheck().getRequestId());
      assertEquals(traceparent, last.getTraceparent());
    }
    assertEquals(1, fake.authorizations.size(), "both checks on one stream");
  }

  @Test
  void aBrokenStreamFailsItsPendingChecksAndIsNeverReused() throws Exception {
    fake.batch = 100; // nothing is answered before the stream breaks
    try (CheckStream stream = client.checkStream()) {
      CompletableFuture<CheckActionResponse> pending = stream.check(check("a", "deploy"));
      assertTrue(fake.arrived.tryAcquire(10, TimeUnit.SECONDS));
      CompletableFuture<CheckActionResponse> intruder = stream.check(check("intruder", "deploy"));
      for (CompletableFuture<CheckActionResponse> f : List.of(pending, intruder)) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        StatusRuntimeException cause = assertInstanceOf(StatusRuntimeException.class, e.getCause());
        assertEquals(Status.Code.PERMISSION_DENIED, cause.getStatus().getCode());
        assertEquals("NOT_YOUR_AGENT", OutriderClient.errorInfo(cause).map(ErrorInfo::getReason).orElse(""));
      }
      fake.batch = 1;
      assertEquals("again", stream.checkSync(check("a", "again"), Duration.ofSeconds(10)).getReason());
    }
    assertEquals(2, fake.authorizations.size(), "a second stream after the first broke");
  }

  @Test
  void closeWaitsForThePendingAnswers() throws Exception {
    fake.batch = 100; // answered only once the client half-closes
    CheckStream stream = client.checkStream();
    List<CompletableFuture<CheckActionResponse>> pending = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pending.add(stream.check(check("a", "deploy")));
    }
    assertTrue(fake.arrived.tryAcquire(3, 10, TimeUnit.SECONDS));
    stream.close();
    for (CompletableFuture<CheckActionResponse> f : pending) {
      assertTrue(f.isDone(), "close returned before every pending check was answered");
      assertEquals("deploy", f.get().getReason());
    }
    ExecutionException e = assertThrows(ExecutionException.class, () -> stream.check(check("a", "x")).get());
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }
}
