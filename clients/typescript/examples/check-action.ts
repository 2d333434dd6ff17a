// Asks the sidecar whether an agent may deploy to production at a cost of 140, then asks three
// questions at once over one check stream (client.checkStream()).
//
//   OUTRIDER_TOKEN=otr_... [OUTRIDER_ADDRESS=127.0.0.1:50051] [OUTRIDER_AGENT=release-agent] node dist/examples/check-action.js
import { errorInfo, OutriderClient, Severity } from "../src/index.js";

const client = new OutriderClient({
  address: process.env.OUTRIDER_ADDRESS, // default 127.0.0.1:50051
  token: process.env.OUTRIDER_TOKEN,
});
const agentId = process.env.OUTRIDER_AGENT || "release-agent";
try {
  const r = await client.checkAction({
    agentId,
    action: "deploy",
    context: { cost: 140, target: "production" },
  });
  // A block is an answer, not an error.
  console.log(
    `allowed=${r.allowed} reason=${JSON.stringify(r.reason)} severity=${Severity[r.severity]} ` +
      `guardrail=${JSON.stringify(r.guardrail)} warnings=${r.warnings.length}`,
  );
  // Many checks over one CheckActions stream, answered as each is decided.
  const stream = client.checkStream();
  try {
    const answers = await Promise.all(["read", "write", "deploy"].map((action) => stream.check({ agentId, action })));
    console.log(`stream: ${answers.map((a, i) => `${["read", "write", "deploy"][i]}=${a.allowed}`).join(" ")}`);
  } finally {
    await stream.close();
  }
} catch (err) {
  const info = errorInfo(err);
  console.error(`the sidecar could not answer: ${String(err)}${info ? ` (reason ${info.reason}, field ${info.metadata.field ?? ""})` : ""}`);
  process.exitCode = 1;
} finally {
  client.close();
}
