/**
 * Another user's file in a sticky folder (/tmp) cannot be replaced: the write is refused before anything is
 * made, so no hard-link backup to that file is left behind. The rule is tested as a function of the owners:
 * the suite runs as one user, so the case needs two.
 */
import { describe, expect, it } from 'vitest';
import { stickyRefusal } from '../../src/files/atomic.js';

describe('stickyRefusal', () => {
  const sticky = { uid: 0, mode: 0o41777 };
  it("another user's file in a sticky folder not ours is refused, naming it", () => {
    expect(stickyRefusal('/tmp/x', { uid: 0 }, sticky, 1000)).toBe(
      'cannot replace /tmp/x: it belongs to another user (uid 0) in a sticky folder',
    );
  });
  it('our own file, our own folder, root, a new file or a folder without the sticky bit are fine', () => {
    expect(stickyRefusal('/tmp/x', { uid: 1000 }, sticky, 1000)).toBeUndefined();
    expect(stickyRefusal('/tmp/x', { uid: 0 }, { uid: 1000, mode: 0o41777 }, 1000)).toBeUndefined();
    expect(stickyRefusal('/tmp/x', { uid: 1000 }, sticky, 0)).toBeUndefined();
    expect(stickyRefusal('/tmp/x', undefined, sticky, 1000)).toBeUndefined();
    expect(stickyRefusal('/srv/x', { uid: 0 }, { uid: 0, mode: 0o40777 }, 1000)).toBeUndefined();
  });
});
