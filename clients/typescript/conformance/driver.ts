// The TypeScript conformance driver: runs tests/conformance/scenarios.json against a live sidecar
// through the generated clients (CheckAction through OutriderClient.checkAction; a `stream` step through
// the generated bidirectional call). The rules are
// those of tests/conformance/README.md, shared by the Python, Go and Java drivers.
//
//   OUTRIDER_CONFORMANCE_ADDRESS=127.0.0.1:50051 OUTRIDER_CONFORMANCE_TOKEN_OPERATOR=... \
//   OUTRIDER_CONFORMANCE_TOKEN_AGENT=... node dist/conformance/driver.js
import { fromJson, toJson, type DescService, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  AccessService,
  CheckActionRequestSchema,
  errorInfo,
  newRequestId,
  OutriderClient,
  RecoveryService,
  SafeguardService,
  SupervisorService,
} from "../src/index.js";

type Json = JsonValue;
type JsonObject = { [k: string]: Json };

interface Step {
  call?: string;
  stream?: string;
  as?: string | { bearer: string };
  request?: JsonObject;
  requests?: Json[];
  expect?: { response?: Json; responses?: Json; error?: Json };
  capture?: Record<string, string>;
}

interface Suite {
  format: string;
  credentials: Record<string, { kind: string; subject: string }>;
  defaults?: { as?: string };
  before_each?: Step[];
  scenarios: { name: string; steps: Step[] }[];
}

class StepFailure extends Error {}

/** A field the response JSON leaves out (proto3 JSON omits zero values). */
const ABSENT = Symbol("absent");
type Actual = Json | typeof ABSENT;

const client = new OutriderClient({ address: process.env.OUTRIDER_CONFORMANCE_ADDRESS });
// Each entry: the service descriptor and the generated client for it.
const services: Record<string, [DescService, Record<string, unknown>]> = {
  SupervisorService: [SupervisorService, client.supervisor],
  RecoveryService: [RecoveryService, client.recovery],
  SafeguardService: [SafeguardService, client.safeguard],
  AccessService: [AccessService, client.access],
};

// ---- the matching rules (identical in every driver) ---------------------------------------------

function substitute(value: Json, vars: Record<string, string>): Json {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      if (!(name in vars)) throw new StepFailure(`unknown variable \${${name}}`);
      return vars[name]!;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

const show = (v: Actual): string => (v === ABSENT ? "nothing" : JSON.stringify(v));
const isObject = (v: Actual): v is JsonObject => v !== null && v !== ABSENT && typeof v === "object" && !Array.isArray(v);

function match(expected: Json, actual: Actual, path: string): string[] {
  if (isObject(expected)) {
    const keys = Object.keys(expected);
    if (keys.length === 1 && keys[0]!.startsWith("$")) return matchOp(keys[0]!, expected[keys[0]!]!, actual, path);
    const got = actual === ABSENT ? {} : actual;
    if (!isObject(got)) return [`${path}: expected an object, got ${show(got)}`];
    return keys.flatMap((k) => match(expected[k]!, k in got ? got[k]! : ABSENT, `${path}.${k}`));
  }
  if (Array.isArray(expected)) {
    const got = actual === ABSENT ? [] : actual;
    if (!Array.isArray(got) || got.length !== expected.length) {
      return [`${path}: expected ${expected.length} items, got ${show(got)}`];
    }
    return expected.flatMap((want, i) => match(want, got[i]!, `${path}[${i}]`));
  }
  if (actual === ABSENT) {
    if (expected === null || expected === false || expected === "" || expected === 0) return [];
    return [`${path}: expected ${show(expected)}, got nothing`];
  }
  if (typeof expected === typeof actual && expected === actual) return [];
  return [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

function matchOp(op: string, arg: Json, actual: Actual, path: string): string[] {
  const text = actual === ABSENT ? "" : actual;
  if (typeof text !== "string") return [`${path}: expected a string for ${op}, got ${show(text)}`];
  const pattern = String(arg);
  let ok: boolean;
  if (op === "$contains") ok = text.includes(pattern);
  else if (op === "$matches") ok = new RegExp(pattern).test(text);
  else return [`${path}: unknown matcher ${op}`];
  return ok ? [] : [`${path}: expected ${op} ${JSON.stringify(pattern)}, got ${JSON.stringify(text)}`];
}

function lookup(doc: Json, dotted: string): string {
  let value: Json = doc;
  for (const part of dotted.split(".")) {
    if (Array.isArray(value) && /^\d+$/.test(part) && Number(part) < value.length) value = value[Number(part)]!;
    else if (isObject(value) && part in value) value = value[part]!;
    else throw new StepFailure(`capture: the response has no ${dotted}`);
  }
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new StepFailure(`capture: ${dotted} is not a string or number`);
}

// ---- running ------------------------------------------------------------------------------------

/** grpc's canonical name of a code: Code.InvalidArgument -> "INVALID_ARGUMENT". */
const codeName = (code: Code): string => Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();

function headers(who: Step["as"], tokens: Record<string, string>, vars: Record<string, string>): Record<string, string> {
  if (typeof who === "object") return { authorization: `Bearer ${substitute(who.bearer, vars) as string}` };
  if (who === "anonymous") return {};
  const token = tokens[who ?? "operator"];
  if (!token) throw new StepFailure(`no token for credential ${JSON.stringify(who)}`);
  return { authorization: `Bearer ${token}` };
}

async function call(name: string, request: Json, hdrs: Record<string, string>): Promise<[Json | undefined, JsonObject | undefined]> {
  const [serviceName, methodName] = name.split(".");
  const entry = services[serviceName ?? ""];
  if (!entry) throw new StepFailure(`unknown service ${JSON.stringify(serviceName)}`);
  const [desc, stub] = entry;
  const method = desc.methods.find((m) => m.name === methodName);
  if (!method || method.methodKind !== "unary") throw new StepFailure(`unknown or streaming method ${name}`);
  const req = fromJson(method.input, request);
  try {
    const resp =
      name === "SupervisorService.CheckAction"
        ? await client.checkAction(fromJson(CheckActionRequestSchema, request), { headers: hdrs })
        : await (stub[method.localName] as (r: unknown, o: object) => Promise<never>)(req, { headers: hdrs });
    return [toJson(method.output, resp), undefined];
  } catch (err) {
    return [undefined, errorJson(err)];
  }
}

function errorJson(err: unknown): JsonObject {
  const e = ConnectError.from(err);
  const info = errorInfo(e);
  return {
    code: codeName(e.code),
    message: e.rawMessage,
    reason: info?.reason ?? "",
    domain: info?.domain ?? "",
    field: info?.metadata.field ?? "",
  };
}

/** A bidirectional stream: every request sent in order, then half-close; the responses received, sorted
 *  by numeric id, and the error JSON when the stream ended with a status. */
async function stream(name: string, requests: Json[], hdrs: Record<string, string>): Promise<[JsonObject[], JsonObject | undefined]> {
  const [serviceName, methodName] = name.split(".");
  const entry = services[serviceName ?? ""];
  if (!entry) throw new StepFailure(`unknown service ${JSON.stringify(serviceName)}`);
  const [desc, stub] = entry;
  const method = desc.methods.find((m) => m.name === methodName);
  if (!method || method.methodKind !== "bidi_streaming") throw new StepFailure(`unknown or not a bidirectional streaming method ${name}`);
  const messages = requests.map((r) => fromJson(method.input, r));
  async function* input(): AsyncGenerator<unknown> {
    yield* messages;
  }
  const open = stub[method.localName] as (r: AsyncIterable<unknown>, o: object) => AsyncIterable<never>;
  const responses: JsonObject[] = [];
  let error: JsonObject | undefined;
  try {
    for await (const resp of open(input(), { headers: hdrs, timeoutMs: client.timeoutMs })) {
      responses.push(toJson(method.output, resp) as JsonObject);
    }
  } catch (err) {
    error = errorJson(err);
  }
  const id = (r: JsonObject): bigint => BigInt(typeof r.id === "string" || typeof r.id === "number" ? r.id : 0);
  responses.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  return [responses, error];
}

async function runStreamStep(step: Step, hdrs: Record<string, string>, vars: Record<string, string>): Promise<void> {
  if (step.capture !== undefined) throw new StepFailure("capture is not supported on a stream step");
  const requests = substitute(step.requests ?? [], vars) as Json[];
  const [responses, error] = await stream(step.stream!, requests, hdrs);
  const expect = substitute((step.expect ?? {}) as Json, vars) as { responses?: Json; error?: Json };
  const problems: string[] = [];
  if (expect.error !== undefined) {
    if (error === undefined) {
      throw new StepFailure(`expected the stream to end with ${show((expect.error as JsonObject).code ?? null)}, it ended OK`);
    }
    problems.push(...match(expect.error, error, "error"));
  } else if (error !== undefined) {
    throw new StepFailure(`the stream ended with ${String(error.code)}: ${String(error.message)}`);
  }
  if (expect.responses !== undefined) problems.push(...match(expect.responses, responses, "responses"));
  if (problems.length > 0) throw new StepFailure(problems.join("; "));
}

async function runStep(suite: Suite, step: Step, tokens: Record<string, string>, vars: Record<string, string>): Promise<void> {
  const hdrs = headers(step.as ?? suite.defaults?.as ?? "operator", tokens, vars);
  if (step.stream !== undefined) return runStreamStep(step, hdrs, vars);
  const request = substitute(step.request ?? {}, vars);
  const [response, error] = await call(step.call ?? "", request, hdrs);
  const expect = substitute((step.expect ?? {}) as Json, vars) as { response?: Json; error?: Json };
  let problems: string[];
  if (expect.error !== undefined) {
    if (error === undefined) {
      throw new StepFailure(`expected error ${show((expect.error as JsonObject).code ?? null)}, got response ${show(response!)}`);
    }
    problems = match(expect.error, error, "error");
  } else {
    if (error !== undefined) throw new StepFailure(`unexpected error ${String(error.code)}: ${String(error.message)}`);
    problems = match(expect.response ?? {}, response!, "response");
  }
  if (problems.length > 0) throw new StepFailure(problems.join("; "));
  for (const [name, dotted] of Object.entries(step.capture ?? {})) vars[name] = lookup(response!, dotted);
}

async function main(): Promise<number> {
  const path =
    process.env.OUTRIDER_CONFORMANCE_SCENARIOS ||
    fileURLToPath(new URL("../../../../tests/conformance/scenarios.json", import.meta.url));
  const suite = JSON.parse(readFileSync(path, "utf8")) as Suite;
  if (suite.format !== "outrider-conformance/1") throw new Error(`${path}: unknown format ${suite.format}`);
  const tokens: Record<string, string> = {};
  for (const name of Object.keys(suite.credentials)) {
    tokens[name] = process.env[`OUTRIDER_CONFORMANCE_TOKEN_${name.toUpperCase()}`] ?? "";
  }
  let passed = 0;
  let failed = 0;
  for (const scenario of suite.scenarios) {
    const vars: Record<string, string> = { run: newRequestId().slice(0, 12) }; // fresh per scenario run
    const steps: [string, number, Step][] = [
      ...(suite.before_each ?? []).map((s, i): [string, number, Step] => ["before_each", i + 1, s]),
      ...scenario.steps.map((s, i): [string, number, Step] => ["step", i + 1, s]),
    ];
    try {
      for (const [kind, i, step] of steps) {
        try {
          await runStep(suite, step, tokens, vars);
        } catch (err) {
          if (err instanceof StepFailure) throw new StepFailure(`${kind} ${i} (${step.call ?? step.stream}): ${err.message}`);
          throw err;
        }
      }
      passed++;
      console.log(`ok   ${scenario.name}`);
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      failed++;
      console.log(`FAIL ${scenario.name}\n     ${err.message}`);
    }
  }
  console.log(`conformance typescript: ${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 2;
  })
  .finally(() => client.close());
