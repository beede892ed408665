// npm as the tests run it: in a sandbox (a cache and logs of its own), packing a
// built tree and installing the tarball with `npm install -g --prefix` as a
// user installs it (test/package.test.ts, test/upgrade.test.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Sandbox } from './helpers.js';
import { runSync } from './spawn.js';

/**
 * The sandbox's environment for npm: its own cache (`cache`, default a folder of the sandbox) and logs; this
 * machine's global npm config (a CA file, say) and the proxy and CA variables kept, so the registry answers.
 */
export function npmEnv(s: Sandbox, cache = join(s.dir, 'npm-cache')): Record<string, string> {
  const pass = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE)$/i.test(k)),
  ) as Record<string, string>;
  // scripts/test.mjs keeps the caller's CA bundle there, out of every test process's start.
  const ca = process.env.FLEET_GIT_TEST_CA_CERTS;
  if (ca !== undefined && pass.NODE_EXTRA_CA_CERTS === undefined) pass.NODE_EXTRA_CA_CERTS = ca;
  return {
    ...s.env,
    ...pass,
    npm_config_cache: cache,
    npm_config_globalconfig: globalConfig(),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

let globalconfig: string | undefined;
function globalConfig(): string {
  return (globalconfig ??= execFileSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8' }).trim());
}

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** npm pack --json's record of it. */
  info: { filename: string; files: { path: string }[] };
}

/** `npm pack` of the package in `dir` into `dest`, its build as it is (npm pack would build again first). */
export function pack(dir: string, dest: string, env: Record<string, string>): Packed {
  const packed = runSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: dir, env });
  assert.equal(packed.status, 0, `npm pack in ${dir}: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as Packed['info'][];
  return { tarball: join(dest, info.filename), info };
}

/** `npm install -g --prefix PREFIX TARBALL` (with `more` options before the tarball), as a user installs a package; asserts it worked. */
export function installGlobal(tarball: string, prefix: string, env: Record<string, string>, more: string[] = []) {
  const r = runSync('npm', ['install', '-g', ...more, '--prefix', prefix, tarball], { cwd: dirname(tarball), env });
  assert.equal(r.status, 0, `npm install -g ${tarball}: ${r.stderr}`);
  return r;
}
