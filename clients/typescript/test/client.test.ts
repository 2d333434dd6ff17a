// OutriderClient against an in-process fake sidecar: the bearer token, the default deadline, and
// checkAction re-attaching with the same request id after a deadline.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import assert from "node:assert/strict";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, test } from "node:test";

import { CheckActionResponseSchema, ErrorInfoSchema, errorInfo, OutriderClient, SupervisorService, type CheckActionRequest } from "../src/index.js";

interface Seen {
  requestId: string;
  authorization: string | null;
  timeout: string | null;
}
let seen: Seen[] = [];
let hold = 0; // the first `hold` CheckAction calls wait until their deadline, like a pending approval

function routes(router: ConnectRouter): void {
  router.service(SupervisorService, {
    async checkAction(req: CheckActionRequest, ctx: HandlerContext) {
      seen.push({ requestId: req.requestId, authorization: ctx.requestHeader.get("authorization"), timeout: ctx.requestHeader.get("grpc-timeout") });
      if (seen.length <= hold) {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        throw new ConnectError("still waiting", Code.DeadlineExceeded);
      }
      return create(CheckActionResponseSchema, { allowed: true, reason: "approved" });
    },
    getAgent(req) {
      const info = { reason: "NOT_FOUND", domain: "outrider.dev", metadata: { field: "agent_id" } };
      throw new ConnectError(`no agent is named ${req.agentId}`, Code.NotFound, undefined, [{ desc: ErrorInfoSchema, value: info }]);
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
  seen = [];
  hold = 0;
});

test("checkAction re-attaches with the same request id after a deadline", async () => {
  hold = 2;
  const client = new OutriderClient({ address, token: "otr_secret", timeoutMs: 300 });
  try {
    const r = await client.checkAction({ agentId: "a", action: "deploy" });
    assert.equal(r.allowed, true);
    assert.equal(r.reason, "approved");
    // Two held attempts, then the answer; on a loaded host the answering attempt may itself run out of
    // time once more before its answer arrives (it failed under a load average of 13 on 2 cores): then
    // one more attempt, with the same request id.
    assert.ok(seen.length >= 3, `${seen.length} attempts`);
    assert.match(seen[0]!.requestId, /^[0-9a-f]{32}$/);
    assert.deepEqual(new Set(seen.map((s) => s.requestId)).size, 1);
    assert.ok(seen.every((s) => s.authorization === "Bearer otr_secret"));
  } finally {
    client.close();
  }
});

test("checkAction keeps the caller's request id and stops when the signal aborts", async () => {
  hold = 1000;
  const client = new OutriderClient({ address, timeoutMs: 100 });
  try {
    await assert.rejects(
      client.checkAction({ agentId: "a", action: "deploy", requestId: "mine" }, { signal: AbortSignal.timeout(1000) }),
      (err: unknown) => ConnectError.from(err).code === Code.DeadlineExceeded || ConnectError.from(err).code === Code.Canceled,
    );
    assert.ok(seen.length >= 2 && seen.length <= 11, `${seen.length} attempts`);
    assert.ok(seen.every((s) => s.requestId === "mine" && s.authorization === null));
  } finally {
    client.close();
  }
});

test("unary calls get the default deadline; errors expose their ErrorInfo", async () => {
  const client = new OutriderClient({ address });
  try {
    await client.supervisor.checkAction({ agentId: "a", action: "x" });
    assert.match(seen[0]!.timeout ?? "", /^\d+m$/); // grpc-timeout in milliseconds
    const err = await client.supervisor.getAgent({ agentId: "ghost" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(ConnectError.from(err).code, Code.NotFound);
    assert.deepEqual(errorInfo(err), { reason: "NOT_FOUND", domain: "outrider.dev", metadata: { field: "agent_id" } });
    assert.equal(errorInfo(new Error("plain")), undefined);
  } finally {
    client.close();
  }
});
