/**
 * Text from outside (build ids, tag names, annotations, URLs, messages quoting them) must not drive the
 * terminal: an ESC or C1 byte starts an ANSI/OSC sequence (colours, a new window title), a bidi override
 * reorders what is shown. Such characters are printed as visible escapes (`\x1b`, `\u202e`) instead.
 * Machine outputs (`-o json`, extracted files, diffs of files) are never passed through this.
 */

/** C0 controls, DEL, C1 controls, and the bidi embeddings, overrides and isolates. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Every control character of `text` escaped as visible text: for one value, or a one-line message. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, visible);
}

/** As escapeControls, but newlines and tabs stay: they are the layout of a multi-line text. */
export function escapeText(text: string): string {
  return text.replace(CONTROLS, (ch) => (ch === '\n' || ch === '\t' ? ch : visible(ch)));
}
