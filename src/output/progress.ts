import { type OutputStream, env, io } from '../context.js';

/**
 * A one-line progress bar for blob downloads on stderr. Only on a TTY; elsewhere it is a no-op, so logs and
 * pipes never see carriage returns.
 */
export interface Progress {
  /** Bytes so far of one blob (the transports' onProgress). */
  update(digest: string, done: number, total: number): void;
  /** Clear the line. */
  done(): void;
}

const NOOP: Progress = { update: () => undefined, done: () => undefined };

/** `done/total unit`, in KiB below a MiB and MiB above. */
function sizes(done: number, total: number): string {
  const scale = Math.max(done, total) < 1024 * 1024 ? { div: 1024, unit: 'KiB' } : { div: 1024 * 1024, unit: 'MiB' };
  const f = (n: number) => (n / scale.div).toFixed(1);
  return total > 0 ? `${f(done)}/${f(total)} ${scale.unit}` : `${f(done)} ${scale.unit}`;
}

export function progressBar(stream: OutputStream = io().stderr, vars: NodeJS.ProcessEnv = env()): Progress {
  if (!stream.isTTY || vars.TERM === 'dumb') return NOOP;
  let last = 0;
  let shown = false;
  return {
    update(digest, done, total) {
      const now = Date.now();
      const finished = total > 0 && done >= total;
      if (!finished && now - last < 100) return;
      last = now;
      const width = 30;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(frac * width);
      const short = digest.replace(/^sha256:/, '').slice(0, 12);
      stream.write(
        `\r\x1b[K${short} [${'='.repeat(filled)}${' '.repeat(width - filled)}] ${Math.round(frac * 100)}% ${sizes(done, total)}`,
      );
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
