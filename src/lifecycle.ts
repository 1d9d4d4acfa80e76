/**
 * Things to close when the last run ends (dispatchers, temp files). Imports nothing heavy.
 * Runs may overlap (tests run `main` in-process, several at once): what one run opened may be shared with
 * another (the HTTP dispatcher), so closers run when no run is active; the next run opens them anew.
 */
const closers = new Set<() => Promise<unknown> | unknown>();
let active = 0;

export function onShutdown(close: () => Promise<unknown> | unknown): void {
  closers.add(close);
}

/** Close everything registered with `onShutdown` now. */
export async function shutdown(): Promise<void> {
  const all = [...closers];
  closers.clear();
  await Promise.allSettled(all.map(async (c) => c()));
}

/** A run starts; call the returned function when it ends (it shuts down when it was the last). */
export function beginRun(): () => Promise<void> {
  active++;
  let ended = false;
  return async () => {
    if (ended) return;
    ended = true;
    if (--active === 0) await shutdown();
  };
}
