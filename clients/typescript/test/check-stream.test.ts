// CheckStream against an in-process fake sidecar that answers CheckActions as the real one does (by id,
// as decisions finish; a request's failure as its `error` answer; another agent's request ending the
// stream): one stream for many checks, the unary error shape, a broken stream replaced, close().
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, test } from "node:test";

import {
  CheckActionsResponseSchema,
  ErrorInfoSchema,
  errorInfo,
  OutriderClient,
  SupervisorService,
  type CheckActionsRequest,
  type CheckActionsResponse,
} from "../src/index.js";

/** An async queue: push from anywhere, `next()` waits. */
class Queue<T> {
  private readonly items: T[] = [];
  private readonly waiting: ((v: T) => void)[] = [];
  push(v: T): void {
    const w = this.waiting.shift();
    if (w) w(v);
    else this.items.push(v);
  }
  next(): Promise<T> {
    const v = this.items.shift();
    return v !== undefined ? Promise.resolve(v) : new Promise((resolve) => this.waiting.push(resolve));
  }
}

interface Opened {
  authorization: string | null;
  requests: CheckActionsRequest[];
}
let opened: Opened[] = [];
let held: (() => void)[] = []; // "hold" checks, answered when the test calls them
const nextHeld = async (n: number): Promise<void> => {
  while (held.length < n) await new Promise((r) => setTimeout(r, 5));
};

const answer = (r: CheckActionsRequest, allowed = true): CheckActionsResponse =>
  create(CheckActionsResponseSchema, {
    id: r.id,
    result: { case: "response", value: { allowed, reason: allowed ? "" : `Action '${r.check!.action}' is denied`, decisionId: r.check!.requestId } },
  });

function routes(router: ConnectRouter): void {
  router.service(SupervisorService, {
    async *checkActions(requests: AsyncIterable<CheckActionsRequest>, ctx: HandlerContext) {
      const me: Opened = { authorization: ctx.requestHeader.get("authorization"), requests: [] };
      opened.push(me);
      const out = new Queue<CheckActionsResponse | Error | null>();
      void (async () => {
        const due: Promise<void>[] = [];
        try {
          for await (const r of requests) {
            me.requests.push(r);
            const check = r.check!;
            if (check.agentId === "intruder") {
              const info = { reason: "NOT_YOUR_AGENT", domain: "outrider.dev", metadata: { field: "check.agent_id" } };
              out.push(new ConnectError("may only act as itself", Code.PermissionDenied, undefined, [{ desc: ErrorInfoSchema, value: info }]));
              return;
            }
            if (check.action === "") {
              out.push(
                create(CheckActionsResponseSchema, {
                  id: r.id,
                  result: { case: "error", value: { code: 3, message: "action is required", reason: "INVALID_FIELD", field: "check.action" } },
                }),
              );
            } else if (check.action === "hold") {
              due.push(new Promise<void>((resolve) => held.push(() => (out.push(answer(r)), resolve()))));
            } else {
              out.push(answer(r, !check.action.startsWith("shell")));
            }
          }
          await Promise.all(due); // half-closed: the stream ends once every request is answered
          out.push(null);
        } catch (err) {
          out.push(err as Error);
        }
      })();
      for (;;) {
        const item = await out.next();
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    },
  });
}

let server: http2.Http2Server;
let address = "";
before(async () => {
  server = http2.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  opened = [];
  held = [];
});

const rejection = (p: Promise<unknown>): Promise<ConnectError> =>
  p.then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => ConnectError.from(e),
  );

test("many checks share one stream with the token; ids from a counter; answers by id", { timeout: 10_000 }, async () => {
  const client = new OutriderClient({ address, token: "otr_secret" });
  const stream = client.checkStream();
  try {
    const actions = Array.from({ length: 30 }, (_, i) => (i % 3 === 1 ? "shell.exec" : `read-${i}`));
    const results = await Promise.all(actions.map((action) => stream.check({ agentId: "a", action })));
    assert.deepEqual(
      results.map((r) => r.allowed),
      actions.map((a) => !a.startsWith("shell")),
    );
    assert.equal(opened.length, 1);
    assert.equal(opened[0]!.authorization, "Bearer otr_secret");
    const reqs = opened[0]!.requests;
    assert.deepEqual(
      reqs.map((r) => r.id),
      actions.map((_, i) => BigInt(i + 1)),
    );
    assert.ok(reqs.every((r) => /^[0-9a-f]{32}$/.test(r.check!.requestId)));
    assert.deepEqual(new Set(results.map((r) => r.decisionId)).size, 30);
    const mine = await stream.check({ agentId: "a", action: "read", requestId: "job-1" }, { traceparent: "00-abc-def-01" });
    assert.equal(mine.decisionId, "job-1");
    assert.equal(opened[0]!.requests.at(-1)!.traceparent, "00-abc-def-01");
  } finally {
    await stream.close();
    client.close();
  }
});

test("a request's error answer rejects that check as the unary call would; the stream goes on", { timeout: 10_000 }, async () => {
  const client = new OutriderClient({ address });
  const stream = client.checkStream();
  try {
    const err = await rejection(stream.check({ agentId: "a", action: "" }));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.rawMessage, "action is required");
    assert.deepEqual(errorInfo(err), { reason: "INVALID_FIELD", domain: "outrider.dev", metadata: { field: "action" } });
    assert.equal((await stream.check({ agentId: "a", action: "read" })).allowed, true);
    // A request of the wrong shape (an untyped caller) fails alone, before it reaches the stream.
    const bad = await rejection(stream.check({ agentId: "a", action: "read", waitMode: "soon" as never }));
    assert.equal(bad.code, Code.InvalidArgument);
    assert.equal((await stream.check({ agentId: "a", action: "read" })).allowed, true);
    assert.equal(opened.length, 1);
    assert.equal(opened[0]!.requests.length, 3);
  } finally {
    await stream.close();
    client.close();
  }
});

test("a waiting check holds up no other; a broken stream fails every waiting check and the next opens a new one", { timeout: 10_000 }, async () => {
  const client = new OutriderClient({ address });
  const stream = client.checkStream();
  try {
    const waiting = stream.check({ agentId: "a", action: "hold" });
    await nextHeld(1);
    assert.equal((await stream.check({ agentId: "a", action: "read" })).allowed, true);
    const denied = await rejection(stream.check({ agentId: "intruder", action: "read" }));
    assert.equal(denied.code, Code.PermissionDenied);
    assert.equal(errorInfo(denied)?.reason, "NOT_YOUR_AGENT");
    const failed = await rejection(waiting);
    assert.equal(failed.code, Code.PermissionDenied);
    assert.equal(opened.length, 1);
    assert.equal((await stream.check({ agentId: "a", action: "read" })).allowed, true);
    assert.equal(opened.length, 2);
    assert.equal(opened[1]!.requests.length, 1);
  } finally {
    await stream.close();
    client.close();
  }
});

test("close() half-closes and waits for the answers still awaited, not for abandoned ones", { timeout: 10_000 }, async () => {
  const client = new OutriderClient({ address });
  const stream = client.checkStream();
  try {
    const abandon = new AbortController();
    const gaveUp = stream.check({ agentId: "a", action: "hold" }, { signal: abandon.signal });
    const last = stream.check({ agentId: "a", action: "hold" });
    await nextHeld(2);
    abandon.abort();
    assert.equal((await rejection(gaveUp)).code, Code.Canceled);
    let closed = false;
    const closing = stream.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(closed, false);
    held[1]!(); // the second hold is answered; the first stays unanswered
    assert.equal((await last).allowed, true);
    await closing;
    assert.equal(closed, true);
    assert.equal((await rejection(stream.check({ agentId: "a", action: "read" }))).code, Code.FailedPrecondition);
    await stream.close(); // idempotent
  } finally {
    client.close();
  }
});
