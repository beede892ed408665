// Builds what the installed command runs. tsc compiles src/ into dist/ (the
// library that `import 'fleet-git'` loads, with its type declarations); esbuild
// then bundles entry points into single files: dist/cli.cjs, the command (a
// loader, CommonJS: an ES module entry costs node some 5 ms more to start),
// dist/cli-main.cjs, the program (one file to read and compile at
// start-up instead of some forty modules: measured 25 ms less per run),
// dist/bulk-worker.js, the helper thread of bulk runs, and dist/hook-client.cjs,
// the self-contained hook client that `fleet-git enable` copies to a stable
// per-user place. Last, one scan of a small made-up folder saves V8's code cache
// of the program (dist/cli-main.cache, see src/code-cache.ts).
//
// All of it is built in a folder beside dist/ that then takes dist/'s place, so
// that a test run or a command using dist/ meanwhile is not left without it for
// the whole build, only for the moment of the swap.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');
const building = join(root, `.dist-build-${process.pid}`); // beside dist/: the package root is its parent either way
process.on('exit', () => rmSync(building, { recursive: true, force: true }));
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', building], { stdio: 'inherit' });
const esbuild = await import('esbuild');
const { WRITE_CACHE_ENV } = await import(join(building, 'code-cache.js'));
/** Bundles src/<entry> into dist/<out>, as CommonJS for node 20 unless `more` says otherwise. */
const bundle = (entry, out, more = {}) => esbuild.build({
  entryPoints: [join(root, 'src', entry)], outfile: join(building, out),
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: false, legalComments: 'none', logLevel: 'warning',
  // A package's ES module build first: jsonc-parser's UMD build requires its parts at run time, which a bundle cannot follow.
  mainFields: ['module', 'main'], ...more,
});
// fast-glob (picomatch) is loaded only when a glob is given: left to node_modules.
const external = ['fast-glob', 'picomatch'];
// The command: the loader of the program (src/code-cache.ts).
await bundle('cli.ts', 'cli.cjs', { define: { 'import.meta.dirname': '__dirname' } });
// The program, as CommonJS: a script V8 can cache the compiled code of (src/code-cache.ts).
await bundle('main.ts', 'cli-main.cjs', {
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__fleetUrl' },
  banner: { js: "const __fleetUrl = require('node:url').pathToFileURL(__filename).href;" },
  external,
});
// The helper thread of bulk runs (src/core/bulk-apply.ts), an ES module: bundled
// CommonJS packages (clipanion) call require(), so it gets one.
await bundle('core/bulk-worker.ts', 'bulk-worker.js', {
  format: 'esm',
  banner: { js: "import { createRequire as __fleetRequire } from 'node:module';\nconst require = __fleetRequire(import.meta.url);" },
  external,
});
// The hook client: Node built-ins only, for whatever node Copilot's PATH has.
await bundle('copilot/hook-client.ts', 'hook-client.cjs', { target: 'node18' });
chmodSync(join(building, 'cli.cjs'), 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(building, dist);

// The code cache: one run of `scan --json` over a made-up folder holding one
// repository and one plain folder compiles what a scan runs, and saves it as
// it exits. A throwaway HOME keeps the builder's own files out of it. Without
// a cache (this failed) the command still runs, compiling as usual.
const warm = mkdtempSync(join(tmpdir(), 'fleet-git-build-'));
try {
  for (const d of ['code/repo/.git/objects', 'code/repo/.git/refs', 'code/folder/sub', 'home']) mkdirSync(join(warm, d), { recursive: true });
  writeFileSync(join(warm, 'code/repo/.git/HEAD'), 'ref: refs/heads/main\n');
  const home = join(warm, 'home');
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), COPILOT_HOME: join(home, '.copilot'), GIT_CONFIG_GLOBAL: join(home, '.gitconfig'), GIT_CONFIG_NOSYSTEM: '1', [WRITE_CACHE_ENV]: '1' };
  execFileSync(process.execPath, [join(root, 'dist/cli.cjs'), 'scan', join(warm, 'code'), '--json'], { env, stdio: 'ignore' });
} catch (err) {
  console.warn(`build: no code cache (the command compiles as usual): ${err.message}`);
} finally {
  rmSync(warm, { recursive: true, force: true });
}
