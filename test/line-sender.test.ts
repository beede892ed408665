// The forwarder's sender (src/fleet/socket.ts's LineSender) when its observer goes, in one process: a line
// counts as sent only into a connection still there, and the next line after an observer's end reaches the
// observer that listens then. test/observer-restart.test.ts has the same through the hook and the forwarder.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventListener } from '../src/fleet/listener.js';
import { LineSender } from '../src/fleet/socket.js';
import { sandbox } from './helpers.js';
import { until } from './hook-run.js';
import { wholeLines } from './observer-server.js';

const sb = sandbox('fleet-git-sender-');
let n = 0;
const socketPath = () => join(sb.dir, `o${++n}.sock`);

test('the observer ends and a new one listens at its socket: the next line goes to the new one', async () => {
  const path = socketPath();
  const old = await EventListener.start(path);
  const sender = new LineSender();
  assert.equal(await sender.send(path, { n: 1 }), true);
  assert.ok(await old.waitUntil(() => old.events.length === 1, 5000));
  await old.close();
  const fresh = await EventListener.start(path);
  try {
    assert.equal(await sender.send(path, { n: 2 }), true);
    assert.ok(await fresh.waitUntil(() => fresh.events.length === 1, 5000), 'the new observer has the line');
    assert.deepEqual(fresh.events, [{ n: 2 }]);
  } finally {
    sender.end();
    await fresh.close();
  }
});

test('the observer closes its server and runs on, reading its connections; a new one listens: the next line goes to the new one', async () => {
  const path = socketPath();
  const old = await EventListener.start(path);
  const sender = new LineSender();
  assert.equal(await sender.send(path, { n: 1 }), true);
  assert.ok(await old.waitUntil(() => old.events.length === 1, 5000));
  old.stopListening();
  const fresh = await EventListener.start(path);
  try {
    assert.equal(await sender.send(path, { n: 2 }), true);
    assert.ok(await fresh.waitUntil(() => fresh.events.length === 1, 5000), 'the new observer has the line');
    assert.deepEqual(fresh.events, [{ n: 2 }]);
    assert.deepEqual(old.events, [{ n: 1 }]);
    assert.equal(old.openConnections, 0, 'the old connection ended');
  } finally {
    sender.end();
    await Promise.all([old.close(), fresh.close()]);
  }
});

test('the observer drops the connection and the next line is written before its end of file is seen (EPIPE): that line goes on a new connection', async () => {
  const path = socketPath();
  const conns: Socket[] = [];
  const bytes: Buffer[][] = [];
  const server = createServer((c) => {
    const mine: Buffer[] = [];
    conns.push(c);
    bytes.push(mine);
    c.on('data', (d) => mine.push(d));
    c.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(path, r));
  const sender = new LineSender();
  try {
    assert.equal(await sender.send(path, { n: 1 }), true);
    await until('the first line', () => bytes[0]?.length === 1);
    conns[0]!.destroy(); // closed here, in this turn: the sender has not read the end of file yet
    assert.equal(await sender.send(path, { n: 2 }), true);
    await until('the second line', () => bytes.length === 2 && Buffer.concat(bytes[1]!).includes('\n'), 5000);
    assert.deepEqual(
      bytes.map((b) => wholeLines(Buffer.concat(b))),
      [[{ n: 1 }], [{ n: 2 }]],
    );
  } finally {
    sender.end();
    for (const c of conns) c.destroy();
    await new Promise((r) => server.close(r));
  }
});
