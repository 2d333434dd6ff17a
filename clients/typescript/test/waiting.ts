// Waiting for a condition in the tests (never a timed assertion): a probe polled every 50 ms until it answers,
// within a generous deadline.

export async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
