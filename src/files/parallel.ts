/** Run `fn` over `items` with at most `limit` calls in flight (file-system calls overlap in libuv's pool). */
export async function forEachLimit<T>(items: Iterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.iterator]();
  const worker = async () => {
    for (let next = it.next(); !next.done; next = it.next()) await fn(next.value);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}
