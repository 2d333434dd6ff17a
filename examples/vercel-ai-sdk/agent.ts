// A Vercel AI SDK agent whose tools are checked by Outrider: one call allowed, one blocked (the model
// reads why), one held until a reviewer approves it, then run.
//
//   make run                                                  # the demo policy, in another terminal
//   cd examples/vercel-ai-sdk && npm install && npm start     # [OUTRIDER_ADDRESS=...] [OUTRIDER_TOKEN=otr_...]
//
// The model is the SDK's MockLanguageModelV3 (from "ai/test"), scripted to call the three tools one after
// another, so the example runs offline; give generateText your own model instead. The sidecar decides:
// `make run`'s demo policy (outrider.example.yaml) denies delete_note (keep-notes) and asks a person before
// deploy_production (release-review): approve it on the console's Pending page (http://127.0.0.1:8080).
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { OutriderClient } from "@outrider/client";
import { OutriderGuard } from "@outrider/client/ai-sdk";

const tools = {
  list_notes: tool({
    description: "The notes' titles.",
    inputSchema: z.object({}),
    execute: async () => "q3, retro",
  }),
  delete_note: tool({
    description: "Delete a note.",
    inputSchema: z.object({ title: z.string() }),
    execute: async ({ title }) => `deleted ${title}`,
  }),
  deploy_production: tool({
    description: "Deploy a version to production.",
    inputSchema: z.object({ version: z.string() }),
    execute: async ({ version }) => `deployed ${version} to production`,
  }),
};

// The scripted model: one tool call per step, then "done". Its tool-call ids are unique, as a real
// model's are: the guard sends each as CheckAction's request id.
const plan = [
  { toolName: "list_notes", input: {} },
  { toolName: "delete_note", input: { title: "q3" } },
  { toolName: "deploy_production", input: { version: "1.4" } },
];
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const call = plan.shift();
    if (!call) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    const content = [{ type: "tool-call" as const, toolCallId: randomUUID(), toolName: call.toolName, input: JSON.stringify(call.input) }];
    return { content, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
  },
});

const client = new OutriderClient({ address: process.env.OUTRIDER_ADDRESS, token: process.env.OUTRIDER_TOKEN });
const guard = new OutriderGuard(client, "support-bot");
try {
  const { text } = await generateText({
    model,
    tools: guard.guardAll(tools), // every tool, checked once per call
    prompt: "tidy the notes, then ship 1.4",
    stopWhen: stepCountIs(10),
    // What each tool returned: what the model reads next (a refusal's reason when it did not run).
    onStepFinish: ({ toolResults }) => toolResults.forEach((r) => console.log(`${r.toolName}: ${String(r.output)}`)),
  });
  console.log(`agent: ${text}`);
} finally {
  client.close();
}
