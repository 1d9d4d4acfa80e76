/** Stream name from a channel: `rhcos-4.12` stays, `4.16-9.4/builds` → `rhcos-4.16-9.4`, `maipo` → `rhcos-maipo`. */
export function streamNameFor(channel: string): string {
  const c = channel.replace(/\/builds$/, '').replace(/\//g, '-');
  return c.startsWith('rhcos') ? c : `rhcos-${c}`;
}
