package dev.outrider.client;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import dev.outrider.v1.CheckActionRequest;
import dev.outrider.v1.CheckActionResponse;
import dev.outrider.v1.CheckActionsError;
import dev.outrider.v1.CheckActionsRequest;
import dev.outrider.v1.CheckActionsResponse;
import dev.outrider.v1.SupervisorServiceGrpc;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Many checks over one long-lived {@code SupervisorService.CheckActions} stream, from any number of
 * threads. Each check gets the next id of a counter; answers, which come in the order decisions
 * finish, are matched back to their futures by id.
 *
 * <p>A check's own failure fails its future with the {@link StatusRuntimeException} the unary
 * {@code checkAction} would throw (same code and description, and a google.rpc.ErrorInfo with the same
 * reason and field, see {@link OutriderClient#errorInfo}). When the stream itself ends with an error
 * (another agent's id, a revoked credential, a lost connection), every pending check fails with that
 * error and the next check opens a new stream: a broken stream is never reused. {@link #close}
 * half-closes the stream and waits for the pending answers. A check never blocks the caller's thread
 * (checks beyond what the sidecar reads at once wait in the channel's buffer); only {@link #checkSync}
 * and {@link #close} wait.
 *
 * <pre>{@code
 * try (CheckStream checks = client.checkStream()) {
 *   CompletableFuture<CheckActionResponse> a = checks.check(request);   // from any thread
 *   CheckActionResponse b = checks.checkSync(other);                    // blocks
 * }
 * }</pre>
 */
public final class CheckStream implements AutoCloseable {
  private static final String DOMAIN = "outrider.dev";

  private final Channel channel;
  private final Object lock = new Object();
  private Conn conn; // the open stream; null before the first check and after one broke
  private long nextId;
  private boolean closed;

  CheckStream(Channel channel) {
    this.channel = channel;
  }

  /** One CheckActions stream and the checks waiting for its answers. */
  private final class Conn implements StreamObserver<CheckActionsResponse> {
    final Map<Long, CompletableFuture<CheckActionResponse>> pending = new ConcurrentHashMap<>();
    final CountDownLatch done = new CountDownLatch(1);
    volatile Throwable error; // why it ended; null when it ended OK
    StreamObserver<CheckActionsRequest> requests; // used under CheckStream.lock only

    @Override
    public void onNext(CheckActionsResponse answer) {
      CompletableFuture<CheckActionResponse> future = pending.remove(answer.getId());
      if (future == null) {
        return; // its caller gave up (cancelled the future)
      }
      if (answer.hasError()) {
        future.completeExceptionally(statusError(answer.getError()));
      } else if (answer.hasResponse()) {
        future.complete(answer.getResponse());
      } else {
        future.completeExceptionally(Status.INTERNAL
            .withDescription("CheckActions answered id " + answer.getId() + " with neither a response nor an error")
            .asRuntimeException());
      }
    }

    @Override
    public void onError(Throwable t) {
      end(t);
    }

    @Override
    public void onCompleted() {
      end(null);
    }

    private void end(Throwable t) {
      List<CompletableFuture<CheckActionResponse>> left;
      synchronized (lock) {
        if (conn == this) {
          conn = null; // the next check opens a new stream
        }
        error = t;
        left = new ArrayList<>(pending.values());
        pending.clear();
      }
      Throwable failure = t != null ? t
          : Status.UNAVAILABLE.withDescription("the CheckActions stream ended before answering").asRuntimeException();
      for (CompletableFuture<CheckActionResponse> f : left) {
        f.completeExceptionally(failure);
      }
      done.countDown();
    }
  }

  /** Same as {@code check(request, "")}. */
  public CompletableFuture<CheckActionResponse> check(CheckActionRequest request) {
    return check(request, "");
  }

  /**
   * "May this agent do this action?" on the stream, as {@code checkAction} asks it: a block is an
   * answer ({@code getAllowed() == false}); a request without a request id gets a random one first.
   * The future fails with a {@link StatusRuntimeException} when the sidecar could not answer, and with
   * {@link IllegalStateException} after {@link #close}. Cancelling the future stops waiting; the
   * sidecar still decides the check.
   *
   * @param traceparent W3C trace context of this decision ("" for a child of the stream's trace)
   */
  public CompletableFuture<CheckActionResponse> check(CheckActionRequest request, String traceparent) {
    CheckActionRequest req = request.getRequestId().isEmpty()
        ? request.toBuilder().setRequestId(OutriderClient.newRequestId()).build() : request;
    CompletableFuture<CheckActionResponse> future = new CompletableFuture<>();
    synchronized (lock) {
      if (closed) {
        future.completeExceptionally(new IllegalStateException("the check stream is closed"));
        return future;
      }
      if (conn == null) {
        Conn fresh = new Conn();
        conn = fresh;
        fresh.requests = SupervisorServiceGrpc.newStub(channel).checkActions(fresh);
        if (conn != fresh) { // it ended at once (a channel with a direct executor reports it inline)
          future.completeExceptionally(fresh.error != null ? fresh.error
              : Status.UNAVAILABLE.withDescription("the CheckActions stream ended at once").asRuntimeException());
          return future;
        }
      }
      Conn c = conn;
      long id = ++nextId;
      c.pending.put(id, future);
      future.whenComplete((r, e) -> c.pending.remove(id));
      try {
        // Sent under the lock: a StreamObserver is not thread-safe, and close() half-closes under it.
        c.requests.onNext(CheckActionsRequest.newBuilder().setId(id).setCheck(req)
            .setTraceparent(traceparent == null ? "" : traceparent).build());
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
      }
    }
    return future;
  }

  /** Same as {@code checkSync(request, null)}: waits for as long as the sidecar holds the check. */
  public CheckActionResponse checkSync(CheckActionRequest request) {
    return checkSync(request, null);
  }

  /**
   * {@link #check} and wait for the answer, at most {@code maxWait} (null: no limit).
   *
   * @throws StatusRuntimeException when the sidecar could not answer (see {@link OutriderClient#errorInfo}),
   *     DEADLINE_EXCEEDED after {@code maxWait}, CANCELLED when the thread is interrupted
   */
  public CheckActionResponse checkSync(CheckActionRequest request, Duration maxWait) {
    CompletableFuture<CheckActionResponse> future = check(request);
    try {
      return maxWait == null ? future.get() : future.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw Status.UNKNOWN.withCause(cause).withDescription(String.valueOf(cause)).asRuntimeException();
    } catch (TimeoutException e) {
      future.cancel(false);
      throw Status.DEADLINE_EXCEEDED.withDescription("no answer within " + maxWait).asRuntimeException();
    } catch (CancellationException e) {
      throw Status.CANCELLED.withDescription("the check was cancelled").withCause(e).asRuntimeException();
    } catch (InterruptedException e) {
      future.cancel(false);
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted while waiting for the answer").withCause(e).asRuntimeException();
    }
  }

  /**
   * Half-closes the stream and waits until every pending check is answered and the stream has ended;
   * an interrupt stops the wait and cancels the stream. Checks fail with IllegalStateException afterwards.
   */
  @Override
  public void close() {
    Conn c;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      c = conn;
      if (c != null) {
        c.requests.onCompleted();
      }
    }
    if (c == null) {
      return;
    }
    try {
      c.done.await();
    } catch (InterruptedException e) {
      synchronized (lock) {
        c.requests.onError(Status.CANCELLED.withDescription("close interrupted").asRuntimeException());
      }
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The exception the unary call would have thrown: the code and description, and a google.rpc.ErrorInfo
   * with the reason and the field as the unary call names it ("action", where the stream says "check.action").
   */
  static StatusRuntimeException statusError(CheckActionsError e) {
    Map<String, String> metadata = new HashMap<>();
    String field = e.getField().startsWith("check.") ? e.getField().substring("check.".length()) : e.getField();
    if (!field.isEmpty()) {
      metadata.put("field", field);
    }
    ErrorInfo info = ErrorInfo.newBuilder().setReason(e.getReason()).setDomain(DOMAIN).putAllMetadata(metadata).build();
    return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
        .setCode(e.getCode()).setMessage(e.getMessage()).addDetails(Any.pack(info)).build());
  }
}
