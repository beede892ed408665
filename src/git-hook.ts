// The git post-checkout hook's node side, bundled into dist/git-hook.cjs and
// carried in the data folder's kit (core/repo/kit.ts), so that it runs
// without fleet-git on PATH: templates/post-checkout.sh starts it as
// `node <kit>/git-hook.cjs post-checkout MODE DATA-DIR KIT-ID PREV NEW FLAG`
// when the worktree does not have fleet-git's hook file yet, and it provisions
// the worktree as enable does (core/setup/checkout-hook.ts). It exits 0
// whatever happens: the git command is never failed.
import { appendFileSync } from 'node:fs';
import { homedir } from 'node:os';
import json5 from 'json5';
// @ts-expect-error picomatch ships no types (glob.ts says what it is)
import picomatch from 'picomatch';
import { postCheckout } from './core/setup/checkout-hook.js';
import { providePicomatch } from './glob.js';
import { provideJson5 } from './json5.js';

// Carried in the bundle: the kit runs from the data folder, where no node_modules is.
providePicomatch(picomatch as Parameters<typeof providePicomatch>[0]);
provideJson5(json5);

const [event, mode, dataDir, kit] = process.argv.slice(2);
const env = process.env;
const debug = env.FLEET_GIT_DEBUG;
/** FLEET_GIT_DEBUG=1: stderr; an absolute path: appended to that file (one that cannot be written: nowhere). */
const say = (line: string) => {
  if (!debug) return;
  const text = `fleet-git post-checkout (${mode}, kit ${kit}): ${process.cwd()}: ${line}\n`;
  try {
    if (debug.startsWith('/')) appendFileSync(debug, text);
    else process.stderr.write(text);
  } catch {
    /* nowhere */
  }
};
if (event === 'post-checkout' && (mode === 'repo' || mode === 'clone') && dataDir)
  postCheckout({
    env,
    home: env.HOME || homedir(),
    cwd: process.cwd(),
    mode,
    dataDir,
    say,
    warn: (line) => process.stderr.write(`${line}\n`),
  });
else process.stderr.write(`fleet-git: ${process.argv[1]}: unknown arguments ${JSON.stringify(process.argv.slice(2))}\n`);
process.exitCode = 0;
