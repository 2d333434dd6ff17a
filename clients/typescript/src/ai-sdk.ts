// The Vercel AI SDK (`ai` 6): every tool call checked once by Outrider before it runs, through the
// tools' `execute`. Imported as "@outrider/client/ai-sdk"; the rest of the client does not need `ai`.
//
//   const guard = new OutriderGuard(new OutriderClient({ token }), "support-bot");
//   const { text } = await generateText({ model, tools: guard.guardAll({ deploy, listNotes }), prompt });
//
// Allowed: the tool runs (with the reviewer's edited arguments when the approval edited them, without a
// second approval). Blocked, or rejected by a reviewer: the tool does not run; its result is the reason
// ("Blocked by Outrider (GUARDRAIL): REASON", or the reviewer's "Rejected by NAME: COMMENT"), which the
// model reads. A hitl guardrail that asks a person holds the call until the approval is decided (the
// tool-call id is CheckAction's request id: a deadline re-attaches to the same request, never a second
// one), at most `approvalTimeoutMs` when set, and never past the run's abort signal. A sidecar that cannot
// answer makes `execute` throw: the tool does not run and the SDK reports a tool error.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { asSchema, type Tool, type ToolExecutionOptions, type ToolSet } from "ai";

import type { OutriderClient } from "./client.js";
import { ApprovalState } from "./gen/outrider/v1/supervisor_pb.js";
import { WaitMode, type CheckActionResponse } from "./gen/outrider/v1/supervisor_service_pb.js";

export interface OutriderGuardOptions {
  /** The action checked for a tool (default: the tool's name as the ToolSet names it). */
  action?: (tool: string) => string;
  /**
   * How long one tool call waits for a reviewer. Unset: until the approval is decided (the hitl
   * guardrail's own `timeout` ends it on the sidecar) or the run is aborted. When it runs out, the
   * tool does not run and the model reads that the approval is still pending.
   */
  approvalTimeoutMs?: number;
}

export type Outcome = "allowed" | "blocked" | "pending";

/** CheckAction's answer for one tool call, in the terms the SDK needs. */
export interface ToolDecision {
  outcome: Outcome;
  reason: string;
  /** What to run: the model's input, or the reviewer's edit. */
  input: unknown;
  edited: boolean;
  guardrail: string;
  decisionId: string;
  approvalId: string;
  approvalState: ApprovalState;
  /** The tool-call id, sent as CheckAction's request id. */
  requestId: string;
}

const closedStates = new Set([ApprovalState.REJECTED, ApprovalState.EXPIRED, ApprovalState.CANCELLED]);

/** The text the model reads when the tool does not run. */
export function refusal(d: ToolDecision, approvalTimeoutMs?: number): string {
  if (d.outcome === "pending") {
    const within = approvalTimeoutMs === undefined ? "" : ` within ${approvalTimeoutMs / 1000} s`;
    return `Not run: human approval ${d.approvalId} was not decided${within}; it is still pending`;
  }
  if (closedStates.has(d.approvalState)) return d.reason;
  const who = d.guardrail ? ` (${d.guardrail})` : "";
  return `Blocked by Outrider${who}: ${d.reason}`;
}

/** Refuses to guard a tool it cannot check (the message names them). */
export class UnguardableToolError extends Error {
  constructor(readonly tools: string[]) {
    super(
      "OutriderGuard cannot check these tools (a tool without execute runs in the caller's code; a provider's " +
        `tool runs on the provider; put MCP servers behind \`outrider mcp-gateway\`): ${tools.join(", ")}`,
    );
    this.name = "UnguardableToolError";
  }
}

const guarded = Symbol("outrider.guard");
const KEPT = 1024;

export class OutriderGuard {
  readonly action: (tool: string) => string;
  readonly approvalTimeoutMs: number | undefined;
  // Refusals not yet turned into the model's view by the tool's own toModelOutput (tool-call id ->
  // text); bounded, an entry is used once.
  private readonly refused = new Map<string, string>();

  constructor(
    readonly client: OutriderClient,
    readonly agentId: string,
    options: OutriderGuardOptions = {},
  ) {
    this.action = options.action ?? ((tool) => tool);
    this.approvalTimeoutMs = options.approvalTimeoutMs;
  }

  /**
   * One CheckAction for one tool call, waiting for a reviewer when a hitl guardrail asks (see
   * `approvalTimeoutMs`). `signal` aborts the wait (the call then rejects with the abort).
   */
  async check(tool: string, input: unknown, toolCallId: string, signal?: AbortSignal): Promise<ToolDecision> {
    const context = contextOf(input);
    const request = { agentId: this.agentId, action: this.action(tool), context, requestId: toolCallId };
    const limit = this.approvalTimeoutMs === undefined ? undefined : AbortSignal.timeout(this.approvalTimeoutMs);
    const signals = [signal, limit].filter((s): s is AbortSignal => s !== undefined);
    let r: CheckActionResponse;
    try {
      r = await this.client.checkAction(
        { ...request, waitMode: WaitMode.BLOCKING },
        signals.length ? { signal: AbortSignal.any(signals) } : {},
      );
    } catch (err) {
      if (limit === undefined || !limit.aborted || signal?.aborted) throw err;
      // Our own limit ran out while a person decides: ask once more without waiting. The same
      // request id re-attaches, so this is the decided verdict, or the still-pending request.
      r = await this.client.supervisor.checkAction({ ...request, waitMode: WaitMode.NON_BLOCKING });
    }
    return decision(r, input, context, toolCallId);
  }

  /**
   * `tool` (named `name` in the ToolSet) with its `execute` guarded; returns a new tool. A tool this
   * guard already guards is returned as it is (one check per call).
   */
  tool<T extends Tool>(name: string, tool: T): T {
    const problem = unguardable(name, tool);
    if (problem) throw new UnguardableToolError([problem]);
    if ((tool as Record<symbol, unknown>)[guarded] === this) return tool;
    if (tool.needsApproval !== undefined && tool.needsApproval !== false) {
      throw new Error(`tool ${name} has its own needsApproval: with Outrider a hitl guardrail decides who must approve; remove it from the tool`);
    }
    const execute = tool.execute!;
    const toModelOutput = tool.toModelOutput;
    const schema = asSchema(tool.inputSchema);
    const wrapped = {
      ...tool,
      execute: async (input: unknown, options: ToolExecutionOptions) => {
        const d = await this.check(name, input, options.toolCallId, options.abortSignal);
        let run = d.input;
        if (d.outcome === "allowed" && d.edited && schema.validate) {
          const valid = await schema.validate(d.input);
          if (!valid.success) return this.refuse(options.toolCallId, `Not run: the reviewer's edit does not fit ${name}'s input: ${valid.error.message}`);
          run = valid.value;
        }
        if (d.outcome !== "allowed") return this.refuse(options.toolCallId, refusal(d, this.approvalTimeoutMs));
        return execute(run as never, options);
      },
      [guarded]: this,
    };
    if (toModelOutput) {
      // The tool's own conversion expects its output type; a refusal is shown to the model as text.
      wrapped.toModelOutput = (options: Parameters<NonNullable<Tool["toModelOutput"]>>[0]) => {
        const text = this.refused.get(options.toolCallId);
        if (text === undefined) return toModelOutput(options);
        this.refused.delete(options.toolCallId);
        return { type: "text", value: text };
      };
    }
    return wrapped as unknown as T;
  }

  /**
   * Every tool of `tools`, guarded (a new ToolSet). Refuses, naming them and before guarding any,
   * tools it cannot check: no tool is left unguarded by accident.
   */
  guardAll<TOOLS extends ToolSet>(tools: TOOLS): TOOLS {
    const problems = Object.entries(tools)
      .map(([name, tool]) => unguardable(name, tool))
      .filter((p): p is string => p !== "");
    if (problems.length) throw new UnguardableToolError(problems);
    return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, this.tool(name, tool)])) as TOOLS;
  }

  private refuse(toolCallId: string, text: string): string {
    this.refused.set(toolCallId, text);
    while (this.refused.size > KEPT) this.refused.delete(this.refused.keys().next().value!);
    return text;
  }
}

function unguardable(name: string, tool: Tool): string {
  if (tool.type === "provider") return `${name} (provider tool ${tool.id})`;
  if (typeof tool.execute !== "function") return `${name} (no execute)`;
  return "";
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The checked context: the tool's input as JSON (an input that is not an object as `{input}`). */
function contextOf(input: unknown): JsonObject {
  const json = JSON.parse(JSON.stringify(input ?? {})) as JsonValue;
  return isObject(json) ? json : { input: json };
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function decision(r: CheckActionResponse, input: unknown, context: JsonObject, requestId: string): ToolDecision {
  const effective = r.effectiveContext ?? context;
  const edited = r.allowed && canonical(effective) !== canonical(context);
  const wrappedInput = !isObject(JSON.parse(JSON.stringify(input ?? {})));
  const state = r.approval?.state ?? ApprovalState.UNSPECIFIED;
  return {
    outcome: r.allowed ? "allowed" : state === ApprovalState.PENDING ? "pending" : "blocked",
    reason: r.reason,
    input: edited ? (wrappedInput ? effective["input"] : effective) : input,
    edited,
    guardrail: r.guardrail,
    decisionId: r.decisionId,
    approvalId: r.approval?.approvalId ?? "",
    approvalState: state,
    requestId,
  };
}
