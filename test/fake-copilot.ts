// A fake `copilot` executable for `fleet-git run` tests: first on PATH, it
// records its arguments, environment, working folder and the signals it gets
// in a JSON file; `--exit N` exits with N, `--wait` waits for a signal
// (`--die` then dies of it, else exits 40).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userPaths } from '../src/paths.js';
import type { Sandbox } from './helpers.js';

const FAKE = `#!${process.execPath}
const fs = require('fs');
const log = process.env.FAKE_COPILOT_LOG;
const rec = { argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, signals: [] };
const save = () => fs.writeFileSync(log, JSON.stringify(rec));
save();
const a = process.argv.slice(2);
const i = a.indexOf('--exit');
if (a.includes('--wait')) {
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => { rec.signals.push(s); save(); if (a.includes('--die')) { process.removeAllListeners(s); process.kill(process.pid, s); } else process.exit(40); });
  fs.writeFileSync(log + '.ready', '');
  setInterval(() => {}, 1000);
} else process.exit(i >= 0 ? Number(a[i + 1]) : 0);
`;

export interface CopilotRecord {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  signals: string[];
}

/**
 * Puts the fake copilot in `<sandbox>/bin` and writes fleet's models.json
 * (`models` as is when a string, as JSON otherwise, no file when undefined).
 * `env` is the sandbox environment with that bin first on PATH; `log` exists
 * only once copilot was started.
 */
export function fakeCopilot(sb: Sandbox, models: unknown) {
  const bin = join(sb.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'copilot'), FAKE);
  chmodSync(join(bin, 'copilot'), 0o755);
  const log = join(sb.dir, 'copilot.log');
  const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}`, FAKE_COPILOT_LOG: log };
  const paths = userPaths(sb.env, sb.home);
  mkdirSync(paths.fleetDir, { recursive: true });
  if (models !== undefined) writeFileSync(paths.fleetModels, typeof models === 'string' ? models : JSON.stringify(models));
  const recorded = () => JSON.parse(readFileSync(log, 'utf8')) as CopilotRecord;
  return { bin, log, env, paths, recorded };
}
