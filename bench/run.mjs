// npm run bench: builds, then runs every benchmark script here in turn.
// Each prints its own ratios, measured side by side in one run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dirname;
const only = process.argv.slice(2);
if (spawnSync(process.execPath, [join(here, '..', 'scripts', 'build.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(1); // no benchmark of a stale or missing build
let failed = 0;
for (const f of readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .sort()) {
  if (only.length && !only.some((o) => f.includes(o))) continue;
  console.log(`# ${f}`);
  const r = spawnSync(process.execPath, [join(here, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
