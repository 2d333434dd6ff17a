// A thin convenience layer over the generated clients: default address, bearer token, default
// deadlines, checkAction that re-attaches by request id after a deadline, and checkStream.
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { randomUUID } from "node:crypto";

import { CheckStream } from "./check-stream.js";
import { AccessService } from "./gen/outrider/v1/access_service_pb.js";
import { RecoveryService } from "./gen/outrider/v1/recovery_service_pb.js";
import { SafeguardService } from "./gen/outrider/v1/safeguard_service_pb.js";
import {
  CheckActionRequestSchema,
  SupervisorService,
  type CheckActionResponse,
} from "./gen/outrider/v1/supervisor_service_pb.js";

/** Where `outrider serve` listens unless told otherwise. */
export const DEFAULT_ADDRESS = "127.0.0.1:50051";
/** The deadline of a unary call that sets none. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface OutriderClientOptions {
  /** "host:port" (plaintext) or an http:// / https:// URL. Default 127.0.0.1:50051. */
  address?: string;
  /** Sent as `authorization: Bearer <token>` on every call; the sidecar requires a credential. */
  token?: string;
  /** Deadline of unary calls that set none (default 10 s); for checkAction, of one attempt. Streams get none. */
  timeoutMs?: number;
  /** More interceptors, run after the one that adds the token. */
  interceptors?: Interceptor[];
}

export class OutriderClient {
  readonly supervisor: Client<typeof SupervisorService>;
  readonly recovery: Client<typeof RecoveryService>;
  readonly safeguard: Client<typeof SafeguardService>;
  readonly access: Client<typeof AccessService>;
  readonly timeoutMs: number;
  private readonly sessions: Http2SessionManager;

  constructor(options: OutriderClientOptions = {}) {
    const address = options.address || DEFAULT_ADDRESS;
    const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.sessions = new Http2SessionManager(baseUrl);
    const token = options.token;
    const bearer: Interceptor = (next) => async (req) => {
      if (token) req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    };
    const inner = createGrpcTransport({
      baseUrl,
      sessionManager: this.sessions,
      interceptors: [bearer, ...(options.interceptors ?? [])],
    });
    const defaultMs = this.timeoutMs;
    // The default deadline applies to unary calls only: a stream (WatchApproval, Attach) lives as
    // long as the caller wants.
    const transport: Transport = {
      unary(method, signal, timeoutMs, header, input, contextValues) {
        return inner.unary(method, signal, timeoutMs ?? defaultMs, header, input, contextValues);
      },
      stream(method, signal, timeoutMs, header, input, contextValues) {
        return inner.stream(method, signal, timeoutMs, header, input, contextValues);
      },
    };
    this.supervisor = createClient(SupervisorService, transport);
    this.recovery = createClient(RecoveryService, transport);
    this.safeguard = createClient(SafeguardService, transport);
    this.access = createClient(AccessService, transport);
  }

  /**
   * "May this agent do this action?" A block is an answer (`allowed: false`), not an error.
   *
   * Each attempt has `timeoutMs`. When an attempt runs out of time (the sidecar may be holding the
   * call for a human approval), the same request, with the same `requestId`, is sent again and
   * re-attaches to its pending decision, until `options.signal` aborts. A request without a
   * `requestId` gets a random one first.
   */
  async checkAction(
    request: MessageInitShape<typeof CheckActionRequestSchema>,
    options: CallOptions = {},
  ): Promise<CheckActionResponse> {
    const req = clone(CheckActionRequestSchema, create(CheckActionRequestSchema, request));
    if (!req.requestId) req.requestId = newRequestId();
    const attemptMs = options.timeoutMs ?? this.timeoutMs;
    for (;;) {
      try {
        return await this.supervisor.checkAction(req, { ...options, timeoutMs: attemptMs });
      } catch (err) {
        const timedOut = ConnectError.from(err).code === Code.DeadlineExceeded;
        if (!timedOut || attemptMs <= 0 || options.signal?.aborted) throw err;
      }
    }
  }

  /**
   * Many checks over one CheckActions stream (opened at the first check), with the client's token:
   * `const s = client.checkStream(); const r = await s.check({ agentId, action }); await s.close();`.
   * See `CheckStream`.
   */
  checkStream(): CheckStream {
    return new CheckStream(this.supervisor);
  }

  /** Closes the HTTP/2 connection. */
  close(): void {
    this.sessions.abort();
  }
}

/** A random idempotency key (32 hex characters). */
export function newRequestId(): string {
  return randomUUID().replaceAll("-", "");
}
