// examples/vercel-ai-sdk run as a user runs it, against a sidecar started as `make run` starts one
// (outrider.example.yaml, OUTRIDER_AUTH_ENABLED=false; only the ports and the data directory differ):
// the demo policy carries every guardrail the example needs, nothing is added here. The example is
// copied to a temporary app whose node_modules holds what its package.json names, linked as
// `npm install` links them (`@outrider/client` is the file: package, so "@outrider/client/ai-sdk"
// resolves through the package's exports, types included), built with its own tsconfig, and run; a
// reviewer approves the deploy it waits for. The docs page shows the example's code as it is.
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, open, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";

import { ApprovalState, OutriderClient, newRequestId } from "../src/index.js";
import { until } from "./waiting.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url)); // from dist/test/
const pkg = join(root, "clients/typescript");
const example = join(root, "examples/vercel-ai-sdk");
const outrider = process.env["OUTRIDER_BIN"] || join(root, ".venv/bin/outrider");
const AGENT = "support-bot"; // the example's agent

let dir = "";
let sidecar: ChildProcess | undefined;
let address = "";
let reviewer: OutriderClient;

before(async () => {
  assert.ok(existsSync(outrider), `no ${outrider}: run \`make venv\` first (or set OUTRIDER_BIN)`);
  dir = await mkdtemp(join(tmpdir(), "outrider-example-ai-sdk-"));
  const portFile = join(dir, "port");
  const log = await open(join(dir, "sidecar.log"), "w");
  // `make run`: OUTRIDER_AUTH_ENABLED=false outrider serve --config outrider.example.yaml, on port 0 and a
  // temporary data directory, without the console (its port is fixed).
  const flags = ["--config", join(root, "outrider.example.yaml"), "--data-dir", join(dir, "data"), "--no-console"];
  sidecar = spawn(outrider, ["serve", ...flags, "--listen", "127.0.0.1:0", "--port-file", portFile], {
    cwd: dir,
    env: { ...process.env, OUTRIDER_AUTH_ENABLED: "false" },
    stdio: ["ignore", log.fd, log.fd],
  });
  await log.close();
  const port = await until("the sidecar's port", async () => {
    if (sidecar!.exitCode !== null) assert.fail(`the sidecar exited: ${await readFile(join(dir, "sidecar.log"), "utf8")}`);
    return existsSync(portFile) ? (await readFile(portFile, "utf8")).trim() || undefined : undefined;
  });
  address = `127.0.0.1:${port}`;
  reviewer = new OutriderClient({ address }); // authentication is off, as with `make run`
});

after(async () => {
  reviewer?.close();
  if (sidecar && sidecar.exitCode === null) {
    const exited = new Promise((r) => sidecar!.once("exit", r));
    sidecar.kill("SIGTERM");
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The example as a user's app: its files, and node_modules with what its package.json names, each
 * linked to the package `make clients` installed (the versions must be the ones the example pins).
 */
async function exampleApp(): Promise<string> {
  const app = join(dir, "app");
  await mkdir(join(app, "node_modules"), { recursive: true });
  for (const file of ["agent.ts", "package.json", "tsconfig.json"]) await copyFile(join(example, file), join(app, file));
  const manifest = JSON.parse(await readFile(join(example, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  for (const [name, spec] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
    let target: string;
    if (spec.startsWith("file:")) {
      target = resolve(example, spec.slice("file:".length));
      assert.equal(target, resolve(pkg), `${name} is the client package`);
    } else {
      target = join(pkg, "node_modules", name);
      const installed = JSON.parse(await readFile(join(target, "package.json"), "utf8")) as { version: string };
      assert.equal(installed.version, spec, `the example pins ${name} ${spec}; the client's tests use ${installed.version}`);
    }
    await mkdir(dirname(join(app, "node_modules", name)), { recursive: true });
    await symlink(target, join(app, "node_modules", name), "dir");
  }
  // `npm run build`: its own tsc, types resolved from node_modules as a user's are.
  await promisify(execFile)(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", join(app, "tsconfig.json")], { cwd: app });
  return app;
}

test("the Vercel AI SDK example runs against make run's policy: allowed, blocked with its reason, approved", async () => {
  const app = await exampleApp();
  const env: Record<string, string | undefined> = { ...process.env, OUTRIDER_ADDRESS: address };
  delete env["OUTRIDER_TOKEN"];
  const proc = spawn(process.execPath, ["dist/agent.js"], { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const lines: string[] = [];
  const read = (async () => {
    for await (const line of createInterface({ input: proc.stdout! })) lines.push(line);
  })();
  try {
    // A reviewer: the deploy's approval request appears, the tool has not run; approve it.
    const pending = await until("the deploy's approval request", async () => {
      if (proc.exitCode !== null) assert.fail(`the example exited early (${proc.exitCode}): ${lines.join("\n")}\n${stderr}`);
      const { approvals } = await reviewer.supervisor.listApprovals({ agentId: AGENT, state: ApprovalState.PENDING, pageSize: 100 });
      return approvals.find((a) => a.action === "deploy_production");
    });
    assert.deepEqual(pending.context, { version: "1.4" });
    assert.ok(!lines.some((l) => l.startsWith("deploy_production:")), "the deploy ran before the reviewer decided");
    await reviewer.supervisor.decideApproval({ approvalId: pending.approvalId, approve: true });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((r) => (timer = setTimeout(r, 60_000, "still running 60 s after the approval")));
    const code = await Promise.race([exited, late]);
    clearTimeout(timer);
    assert.equal(code, 0, `${lines.join("\n")}\n${stderr}`);
    await read;
  } finally {
    if (proc.exitCode === null) proc.kill();
  }
  assert.deepEqual(lines, [
    "list_notes: q3, retro",
    "delete_note: Blocked by Outrider (keep-notes): Action 'delete_note' is denied by keep-notes",
    "deploy_production: deployed 1.4 to production",
    "agent: done",
  ]);

  // One decision row per tool call. A sentinel check written after the example's decisions (one FIFO
  // writer) says when they are all listed.
  const sentinel = newRequestId();
  await reviewer.checkAction({ agentId: AGENT, action: "sentinel", requestId: sentinel });
  await until("the sentinel's decision row", async () => {
    const { decisions } = await reviewer.supervisor.listDecisions({ agentId: AGENT, action: "sentinel", pageSize: 100 });
    return decisions.some((d) => d.requestId === sentinel) || undefined;
  });
  const { decisions } = await reviewer.supervisor.listDecisions({ agentId: AGENT, pageSize: 100 });
  const rows = decisions
    .filter((d) => d.action !== "sentinel")
    .map((d) => (d.allowed ? `${d.action} allowed` : `${d.action} blocked by ${d.guardrail}`))
    .sort();
  assert.deepEqual(rows, ["delete_note blocked by keep-notes", "deploy_production allowed", "list_notes allowed"]);
});

test("the docs page shows the example's code as it is", async () => {
  const page = await readFile(join(root, "docs/integrations/vercel-ai-sdk.md"), "utf8");
  const code = await readFile(join(example, "agent.ts"), "utf8");
  assert.ok(page.includes("```ts\n" + code + "```\n"), "docs/integrations/vercel-ai-sdk.md must show examples/vercel-ai-sdk/agent.ts unchanged");
});
