/**
 * A passphrase for a protected key: asked on the terminal (stderr, not echoed) when stdin is one, else read as
 * the first line of stdin (`osimage … < passphrase-file` in a script). Never printed.
 */
import { io } from '../context.js';
import { OsimageError } from '../errors.js';

/** A passphrase is one line of at most this many characters. */
const MAX_CHARS = 4096;

export async function readPassphrase(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    io().stderr.write(prompt);
    return new Promise((resolve, reject) => {
      let text = '';
      stdin.setRawMode(true);
      stdin.resume();
      const done = (err?: Error) => {
        stdin.setRawMode(false);
        stdin.pause();
        stdin.off('data', onData);
        io().stderr.write('\n');
        if (err) reject(err);
        else resolve(text);
      };
      const onData = (chunk: Buffer) => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done();
          if (ch === '\u0003') return done(new OsimageError('interrupted while reading the passphrase'));
          if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
          else if (text.length < MAX_CHARS) text += ch;
        }
      };
      stdin.on('data', onData);
    });
  }
  let text = '';
  for await (const chunk of stdin) {
    text += (chunk as Buffer).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl >= 0) {
      text = text.slice(0, nl);
      break;
    }
    if (text.length > MAX_CHARS) throw new OsimageError(`the passphrase on stdin is longer than ${MAX_CHARS} characters`);
  }
  return text.replace(/\r$/, '');
}
