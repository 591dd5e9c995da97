// Waiting in tests for something the server does in its own time, with a deadline that names what was awaited.

/** Resolves once `condition` holds, checking every `everyMs`; fails after `timeoutMs` saying what it waited for. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
