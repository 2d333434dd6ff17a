// A check stream: many checks over one long-lived SupervisorService.CheckActions stream.
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { randomUUID } from "node:crypto";

import { ErrorInfoSchema } from "./errors.js";
import {
  CheckActionRequestSchema,
  CheckActionsRequestSchema,
  type CheckActionResponse,
  type CheckActionsError,
  type CheckActionsRequest,
  type CheckActionsResponse,
  type SupervisorService,
} from "./gen/outrider/v1/supervisor_service_pb.js";

/** The ErrorInfo domain of every error the sidecar sends. */
const SIDECAR_DOMAIN = "outrider.dev";
/** CheckActions names a field of the stream's request ("check.action"); the unary call names "action". */
const FIELD_PREFIX = "check.";

export interface CheckStreamOptions {
  /** W3C trace context of this decision: its span continues that trace. */
  traceparent?: string;
  /** Stops waiting for this answer (the request stays in flight at the sidecar; its answer is dropped). */
  signal?: AbortSignal;
}

/**
 * The error the unary checkAction would have thrown for a request answered with `error`: a ConnectError
 * with the same code, message and google.rpc.ErrorInfo (reason, domain, metadata.field without the
 * stream's "check." prefix), so `errorInfo(err)` reads it as for a unary call.
 */
export function streamError(err: CheckActionsError): ConnectError {
  const field = err.field.startsWith(FIELD_PREFIX) ? err.field.slice(FIELD_PREFIX.length) : err.field;
  const code = err.code in Code && err.code !== 0 ? (err.code as Code) : Code.Unknown;
  const info = { reason: err.reason, domain: SIDECAR_DOMAIN, metadata: field ? { field } : {} };
  return new ConnectError(err.message, code, undefined, [{ desc: ErrorInfoSchema, value: info }]);
}

interface Waiter {
  resolve(r: CheckActionResponse): void;
  reject(e: unknown): void;
}

/** One CheckActions call: requests through a queue the call pulls from, answers read as they come. */
class Session {
  readonly pending = new Map<bigint, Waiter>();
  ended = false;
  private readonly queue: CheckActionsRequest[] = [];
  private halfClosed = false;
  private wake: (() => void) | undefined;
  private readonly abort = new AbortController();
  private readonly reading: Promise<void>;

  constructor(supervisor: Client<typeof SupervisorService>) {
    this.reading = this.read(supervisor.checkActions(this.requests(), { signal: this.abort.signal }));
  }

  private async *requests(): AsyncGenerator<CheckActionsRequest> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.halfClosed || this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  send(request: CheckActionsRequest, waiter: Waiter): void {
    this.pending.set(request.id, waiter);
    this.queue.push(request);
    this.poke();
  }

  private async read(answers: AsyncIterable<CheckActionsResponse>): Promise<void> {
    let error: ConnectError | undefined;
    try {
      for await (const answer of answers) {
        const waiter = this.pending.get(answer.id);
        if (waiter === undefined) continue; // its caller stopped waiting
        this.pending.delete(answer.id);
        if (answer.result.case === "response") waiter.resolve(answer.result.value);
        else if (answer.result.case === "error") waiter.reject(streamError(answer.result.value));
        else waiter.reject(new ConnectError(`the sidecar answered check ${answer.id} with neither a response nor an error`, Code.Internal));
      }
    } catch (err) {
      error = ConnectError.from(err);
    }
    this.ended = true;
    this.poke();
    const left = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of left) {
      waiter.reject(error ?? new ConnectError("the check stream ended without answering this check", Code.Internal));
    }
  }

  /** Half-close, wait for the answers still awaited, then end the call (requests whose caller stopped
   *  waiting are not waited for). */
  async close(awaited: Promise<unknown>[]): Promise<void> {
    this.halfClosed = true;
    this.poke();
    await Promise.allSettled(awaited);
    this.abort.abort();
    await this.reading;
  }
}

/**
 * `client.checkStream()`: checks from any number of callers over one CheckActions stream, opened at the
 * first check. Each check gets an id of its own (a counter) and is answered as soon as it is decided, so
 * one waiting for a person holds up no other. A check's own failure rejects with the error `checkAction`
 * would throw; when the stream itself ends with an error (a check naming another agent, a revoked
 * credential, the sidecar going away) every waiting check rejects with it and the next check opens a new
 * stream. `close()` half-closes and waits for the answers still awaited.
 */
export class CheckStream {
  private nextId = 1n;
  private session: Session | undefined;
  private closed = false;
  private readonly awaited = new Set<Promise<unknown>>();

  constructor(private readonly supervisor: Client<typeof SupervisorService>) {}

  /** May this agent do this action? As `checkAction` (a random `requestId` unless given); a block is
   *  an answer (`allowed: false`), not an error. */
  check(request: MessageInitShape<typeof CheckActionRequestSchema>, options: CheckStreamOptions = {}): Promise<CheckActionResponse> {
    if (this.closed) return Promise.reject(new ConnectError("the check stream is closed", Code.FailedPrecondition));
    if (options.signal?.aborted) return Promise.reject(ConnectError.from(options.signal.reason));
    let message: CheckActionsRequest;
    try {
      // A wrong type from a JavaScript caller is refused here (create and clone validate every field):
      // it fails this check alone, never the stream the other checks share.
      const check = clone(CheckActionRequestSchema, create(CheckActionRequestSchema, request));
      if (!check.requestId) check.requestId = randomUUID().replaceAll("-", "");
      message = create(CheckActionsRequestSchema, { id: this.nextId, check, traceparent: options.traceparent ?? "" });
    } catch (err) {
      return Promise.reject(ConnectError.from(err, Code.InvalidArgument));
    }
    const id = this.nextId++;
    if (this.session === undefined || this.session.ended) this.session = new Session(this.supervisor);
    const session = this.session;
    const answer = new Promise<CheckActionResponse>((resolve, reject) => {
      const signal = options.signal;
      const onAbort = () => {
        session.pending.delete(id);
        reject(ConnectError.from(signal!.reason));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      session.send(message, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
    });
    this.awaited.add(answer);
    const forget = () => this.awaited.delete(answer);
    answer.then(forget, forget);
    return answer;
  }

  /** Half-closes the stream and waits until every check still awaited is answered. */
  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    if (session !== undefined) await session.close([...this.awaited]);
  }
}
