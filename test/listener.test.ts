// The listener doctor --live reports to (src/fleet/listener.ts).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventListener, SOCKET_PATH_MAX } from '../src/fleet/listener.js';
import { sandbox } from './helpers.js';

test('a socket path too long for a Unix socket is refused, and no socket is made at a cut name', async () => {
  const sb = sandbox('fleet-git-listener-');
  const long = join(sb.dir, 'x'.repeat(Math.max(1, SOCKET_PATH_MAX - sb.dir.length - 10)));
  mkdirSync(long);
  const path = join(long, 'fleet-git-live-abcdef', 'observer', 'fleet.sock');
  assert.ok(Buffer.byteLength(path) > SOCKET_PATH_MAX);
  await assert.rejects(EventListener.start(path), /too long for a Unix socket/);
  assert.deepEqual(
    readdirSync(long).filter((n) => n !== 'fleet-git-live-abcdef'),
    [],
    'nothing at the cut name',
  );
});
