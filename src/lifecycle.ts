/** Things to close before the process ends (dispatchers, temp files). Imports nothing heavy. */
const closers = new Set<() => Promise<unknown> | unknown>();

export function onShutdown(close: () => Promise<unknown> | unknown): void {
  closers.add(close);
}

export async function shutdown(): Promise<void> {
  const all = [...closers];
  closers.clear();
  await Promise.allSettled(all.map(async (c) => c()));
}
