// The Vercel AI SDK guard, driven by the SDK's own MockLanguageModelV3 through a real sidecar (`outrider
// serve` on port 0, SQLite in a temporary directory, as tests/conformance/run.sh starts one): allowed
// tools run, a block's reason reaches the model, an approval holds the call until a reviewer decides over
// gRPC, an edit runs as approved with no second approval, one decision row per tool call, and guardAll
// leaves no tool unguarded.
import { generateText, stepCountIs, tool, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { z } from "zod";

import { OutriderGuard, UnguardableToolError } from "../src/ai-sdk.js";
import { ApprovalState, OutriderClient, newRequestId, type Approval, type Decision } from "../src/index.js";
import { until } from "./waiting.js";

type LanguageModelV3CallOptions = MockLanguageModelV3["doGenerateCalls"][number];
type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const root = fileURLToPath(new URL("../../../../", import.meta.url)); // from dist/test/
const outrider = process.env["OUTRIDER_BIN"] || join(root, ".venv/bin/outrider");
const AGENT = "ai-sdk-agent";
const POLICY = `# The guardrails these tests need (the demo policy's keep-notes and a review of every deploy).
guardrails:
  - {name: keep-notes, kind: action_list, deny: [delete_note]}
  - {name: release-review, kind: hitl, patterns: [deploy], timeout: 1h, on_timeout: deny}
decision_log: {flush_interval: 50ms}
`;

let dir = "";
let sidecar: ChildProcess | undefined;
let agent: OutriderClient;
let operator: OutriderClient;

before(async () => {
  assert.ok(existsSync(outrider), `no ${outrider}: run \`make venv\` first (or set OUTRIDER_BIN)`);
  dir = await mkdtemp(join(tmpdir(), "outrider-ai-sdk-"));
  await writeFile(join(dir, "outrider.yaml"), POLICY);
  const flags = ["--config", join(dir, "outrider.yaml"), "--data-dir", join(dir, "data"), "--no-console", "--log-level", "warning"];
  const issue = async (kind: string, subject: string) =>
    (await promisify(execFile)(outrider, ["tokens", "issue", `--${kind}`, subject, "--description", "ai-sdk test", ...flags])).stdout.trim();
  const agentToken = await issue("agent", AGENT);
  const operatorToken = await issue("operator", "reviewer");
  const portFile = join(dir, "port");
  const log = await open(join(dir, "sidecar.log"), "w");
  sidecar = spawn(outrider, ["serve", ...flags, "--listen", "127.0.0.1:0", "--port-file", portFile], { stdio: ["ignore", log.fd, log.fd] });
  await log.close();
  const port = await until("the sidecar's port", async () => {
    if (sidecar!.exitCode !== null) assert.fail(`the sidecar exited: ${await readFile(join(dir, "sidecar.log"), "utf8")}`);
    return existsSync(portFile) ? (await readFile(portFile, "utf8")).trim() || undefined : undefined;
  });
  agent = new OutriderClient({ address: `127.0.0.1:${port}`, token: agentToken, timeoutMs: 2_000 });
  operator = new OutriderClient({ address: `127.0.0.1:${port}`, token: operatorToken });
});

after(async () => {
  agent?.close();
  operator?.close();
  if (sidecar && sidecar.exitCode === null) {
    const exited = new Promise((r) => sidecar!.once("exit", r));
    sidecar.kill("SIGTERM");
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

// --- the agent's tools ------------------------------------------------------------------------------

let ran: Array<[string, unknown]> = [];

function notesTools(): ToolSet {
  return {
    list_notes: tool({
      description: "List the notes.",
      inputSchema: z.object({}),
      execute: async () => {
        ran.push(["list_notes", {}]);
        return "notes: groceries, standup";
      },
    }),
    delete_note: tool({
      description: "Delete a note.",
      inputSchema: z.object({ title: z.string() }),
      execute: async (input) => {
        ran.push(["delete_note", input]);
        return `deleted ${input.title}`;
      },
    }),
    deploy: tool({
      description: "Deploy a version to an environment.",
      inputSchema: z.object({ env: z.string(), version: z.string() }),
      execute: async (input) => {
        ran.push(["deploy", input]);
        return `deployed ${input.version} to ${input.env}`;
      },
    }),
  };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls `toolName` with `input` once (call id `callId`), then answers "done". */
function scripted(toolName: string, input: object, callId: string): MockLanguageModelV3 {
  const steps: LanguageModelV3GenerateResult[] = [
    {
      content: [{ type: "tool-call", toolCallId: callId, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: "tool-calls", raw: undefined },
      usage,
      warnings: [],
    },
    { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
  ];
  let step = 0;
  return new MockLanguageModelV3({ doGenerate: async () => steps[Math.min(step++, steps.length - 1)]! });
}

/** What the model read as the results of its tool calls (from its second call's prompt). */
function toolResults(model: MockLanguageModelV3): Array<{ toolCallId: string; output: unknown }> {
  const second: LanguageModelV3CallOptions | undefined = model.doGenerateCalls[1];
  assert.ok(second, "the model was not called again after the tool call");
  return second.prompt
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content)
    .filter((p) => p.type === "tool-result")
    .map((p) => ({ toolCallId: p.toolCallId, output: p.output }));
}

async function runAgent(guard: OutriderGuard, toolName: string, input: object, callId: string) {
  ran = [];
  const model = scripted(toolName, input, callId);
  const result = await generateText({ model, tools: guard.guardAll(notesTools()), prompt: "go", stopWhen: stepCountIs(3) });
  assert.equal(result.text, "done");
  return { model, result };
}

/**
 * The decision rows of one tool call. A sentinel check by the same agent is written after every
 * earlier decision (one FIFO writer): once it is listed, the call's rows are all there.
 */
async function decisionRows(action: string, requestId: string): Promise<Decision[]> {
  const sentinel = newRequestId();
  await agent.checkAction({ agentId: AGENT, action: "sentinel", requestId: sentinel });
  await until("the sentinel's decision row", async () => {
    const { decisions } = await operator.supervisor.listDecisions({ agentId: AGENT, action: "sentinel", pageSize: 1000 });
    return decisions.some((d) => d.requestId === sentinel) || undefined;
  });
  const { decisions } = await operator.supervisor.listDecisions({ agentId: AGENT, action, pageSize: 1000 });
  return decisions.filter((d) => d.requestId === requestId);
}

async function approvalsOf(requestId: string): Promise<Approval[]> {
  const { approvals } = await operator.supervisor.listApprovals({ agentId: AGENT, pageSize: 1000 });
  return approvals.filter((a) => a.requestId === requestId);
}

/** Waits for the approval request of `requestId`, checks the tool has not run, then decides it. */
async function decide(requestId: string, decision: { approve: boolean; comment?: string; editedContext?: Record<string, string> }) {
  const pending = await until("the approval request", async () => (await approvalsOf(requestId)).find((a) => a.state === ApprovalState.PENDING));
  assert.deepEqual(ran, [], "the tool ran before the reviewer decided");
  await operator.supervisor.decideApproval({ approvalId: pending.approvalId, ...decision });
}

// --- the tests --------------------------------------------------------------------------------------

test("an allowed tool runs and its output reaches the model: one decision row", async () => {
  const guard = new OutriderGuard(agent, AGENT);
  const { model } = await runAgent(guard, "list_notes", {}, "aisdk_allowed");
  assert.deepEqual(ran, [["list_notes", {}]]);
  assert.deepEqual(toolResults(model), [{ toolCallId: "aisdk_allowed", output: { type: "text", value: "notes: groceries, standup" } }]);
  const rows = await decisionRows("list_notes", "aisdk_allowed");
  assert.deepEqual(rows.map((d) => d.allowed), [true]);
});

test("a blocked tool does not run and the model reads the reason: one decision row", async () => {
  const guard = new OutriderGuard(agent, AGENT);
  const { model } = await runAgent(guard, "delete_note", { title: "standup" }, "aisdk_blocked");
  assert.deepEqual(ran, []);
  const [result] = toolResults(model);
  assert.equal(result!.toolCallId, "aisdk_blocked");
  const output = result!.output as { type: string; value: string };
  assert.equal(output.type, "text");
  assert.match(output.value, /^Blocked by Outrider \(keep-notes\): /);
  const rows = await decisionRows("delete_note", "aisdk_blocked");
  assert.deepEqual(rows.map((d) => [d.allowed, d.guardrail]), [[false, "keep-notes"]]);
});

for (const [name, decision, expectRan, said] of [
  ["approved", { approve: true }, [["deploy", { env: "prod", version: "3" }]], "deployed 3 to prod"],
  ["rejected", { approve: false, comment: "freeze until Monday" }, [], "Rejected by reviewer: freeze until Monday"],
  ["edited", { approve: true, editedContext: { env: "staging", version: "3" } }, [["deploy", { env: "staging", version: "3" }]], "deployed 3 to staging"],
] as const) {
  test(`an approval holds the call until a reviewer decides (${name}), then runs what was approved`, async () => {
    const callId = `aisdk_${name}`;
    const guard = new OutriderGuard(agent, AGENT);
    const running = runAgent(guard, "deploy", { env: "prod", version: "3" }, callId);
    await decide(callId, decision);
    const { model } = await running;
    assert.deepEqual(ran, expectRan);
    const [result] = toolResults(model);
    assert.match((result!.output as { value: string }).value, new RegExp(said));
    // One approval request, decided once: an edit runs without asking again, and the call that waited
    // for it is one decision (the verdict), not a pending one and then another.
    const approvals = await approvalsOf(callId);
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0]!.state, decision.approve ? ApprovalState.APPROVED : ApprovalState.REJECTED);
    const rows = await decisionRows("deploy", callId);
    assert.deepEqual(rows.map((d) => d.allowed), [decision.approve]);
  });
}

test("an approval not decided within approvalTimeoutMs: the tool does not run, the model is told it is pending", async () => {
  const guard = new OutriderGuard(agent, AGENT, { approvalTimeoutMs: 300 });
  const { model } = await runAgent(guard, "deploy", { env: "prod", version: "4" }, "aisdk_timeout");
  assert.deepEqual(ran, []);
  const [approval] = await approvalsOf("aisdk_timeout");
  assert.equal(approval!.state, ApprovalState.PENDING);
  const [result] = toolResults(model);
  assert.equal((result!.output as { value: string }).value, `Not run: human approval ${approval!.approvalId} was not decided within 0.3 s; it is still pending`);
  const rows = await decisionRows("deploy", "aisdk_timeout");
  assert.deepEqual(rows.map((d) => d.allowed), [false]);
});

test("an edit that does not fit the tool's input schema does not run", async () => {
  const guard = new OutriderGuard(agent, AGENT);
  const running = runAgent(guard, "deploy", { env: "prod", version: "5" }, "aisdk_badedit");
  const pending = await until("the approval request", async () => (await approvalsOf("aisdk_badedit"))[0]);
  await operator.supervisor.decideApproval({ approvalId: pending.approvalId, approve: true, editedContext: { env: "staging", version: 5 } });
  const { model } = await running;
  assert.deepEqual(ran, []);
  const [result] = toolResults(model);
  assert.match((result!.output as { value: string }).value, /^Not run: the reviewer's edit does not fit deploy's input: /);
});

test("guardAll refuses what it cannot check, before guarding anything; guarding twice checks once", async () => {
  const guard = new OutriderGuard(agent, AGENT);
  const tools = notesTools();
  const clientSide = tool({ description: "runs in the caller's code", inputSchema: z.object({}) });
  assert.throws(
    () => guard.guardAll({ ...tools, confirm: clientSide }),
    (err: unknown) => err instanceof UnguardableToolError && err.message.includes("confirm (no execute)"),
  );
  assert.throws(() => guard.tool("ask", tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => "x" })), /own needsApproval/);

  const twice = guard.guardAll(guard.guardAll(tools));
  assert.equal(twice["list_notes"], guard.guardAll(twice)["list_notes"]);
  ran = [];
  const model = scripted("list_notes", {}, "aisdk_twice");
  await generateText({ model, tools: twice, prompt: "go", stopWhen: stepCountIs(3) });
  assert.deepEqual(ran, [["list_notes", {}]]);
  assert.equal((await decisionRows("list_notes", "aisdk_twice")).length, 1);
});
