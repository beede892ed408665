// How much the hook client costs Copilot on each tool call: the median wall time
// of dist/hook-client.cjs handing a real postToolUse payload to a listening
// observer, against `node -e 0` fed the same stdin, both spawned the same way,
// interleaved in one run. Target: ratio <= 1.3.
//
//   npm run build && node bench/hook-client.mjs [runs]
//
// Builds nothing itself. Uses a temporary HOME, so the real observer never sees these events.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, built } from './lib/built.mjs';
import { median } from './lib/stats.mjs';

const root = ROOT;
const client = built('hook-client.cjs');
const runs = Number(process.argv[2]) || 40;
const payload = readFileSync(join(root, 'test', 'fixtures', 'copilot-1.0.102', 'postToolUse.json'));

const dir = mkdtempSync(join(tmpdir(), 'fleet-git-bench-'));
const home = join(dir, 'home');
const sock = join(home, '.config', 'claude-code-fleet', 'fleet.sock');
mkdirSync(join(home, '.config', 'claude-code-fleet'), { recursive: true });
// A repository-level run (COPILOT_HOOK_DIR), with a user-level fleet.json that is not fleet-git's:
// the client's dearest path, which stats, reads and parses that file, then reports.
mkdirSync(join(home, '.copilot', 'hooks'), { recursive: true });
writeFileSync(
  join(home, '.copilot', 'hooks', 'fleet.json'),
  '{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"my-own-logger"}]}}\n',
);
const env = {
  PATH: process.env.PATH,
  HOME: home,
  COPILOT_HOME: join(home, '.copilot'),
  COPILOT_HOOK_DIR: join(dir, 'repo', '.github', 'hooks'),
  LANG: 'C.UTF-8',
};

// The observer runs in its own process (framing like the real one), so the
// timed runs below can be synchronous without starving it. It counts the lines it parsed.
const observer = spawn(
  process.execPath,
  [
    '-e',
    `
  const net = require('net'); let n = 0;
  const s = net.createServer((c) => { let b = ''; c.on('data', (d) => { b += d; let i;
    while ((i = b.indexOf('\\n')) >= 0) { try { JSON.parse(b.slice(0, i)); n++; } catch {} b = b.slice(i + 1); } }); c.on('error', () => {}); });
  s.listen(process.argv[1], () => process.stdout.write('ready\\n'));
  process.stdin.on('end', () => { process.stdout.write(n + '\\n'); process.exit(0); }); process.stdin.resume();
`,
    sock,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
let out = '';
observer.stdout.on('data', (d) => (out += d));
await new Promise((resolve) => observer.stdout.once('data', resolve));

function time(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input: payload, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 || r.stdout.length)
    throw new Error(`bench: ${args.join(' ')} exited ${r.status} with stdout ${r.stdout} and stderr ${r.stderr}`);
  return ms;
}

for (let i = 0; i < 5; i++) {
  time(['-e', '0']);
  time([client, 'postToolUse']);
} // warm up
const base = [];
const hook = [];
for (let i = 0; i < runs; i++) {
  // Interleaved, so drift in machine load hits both alike.
  base.push(time(['-e', '0']));
  hook.push(time([client, 'postToolUse']));
}

observer.stdin.end();
await new Promise((resolve) => observer.on('close', resolve));
const received = Number(out.trim().split('\n').pop());
rmSync(dir, { recursive: true, force: true });

const b = median(base);
const h = median(hook);
console.log(
  `node -e 0               median ${b.toFixed(1)} ms  (min ${Math.min(...base).toFixed(1)}, max ${Math.max(...base).toFixed(1)}, n=${runs})`,
);
console.log(
  `hook-client postToolUse median ${h.toFixed(1)} ms  (min ${Math.min(...hook).toFixed(1)}, max ${Math.max(...hook).toFixed(1)}, n=${runs})`,
);
console.log(`observer received ${received} of ${runs + 5} events`);
console.log(`ratio ${(h / b).toFixed(2)} (target <= 1.30)`);
if (received !== runs + 5) process.exitCode = 1;
