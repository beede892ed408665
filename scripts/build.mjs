// Builds what the installed command runs, all with esbuild, each entry point
// bundled into a single file: dist/cli.cjs, the command (a loader, CommonJS: an
// ES module entry costs node some 5 ms more to start), dist/cli-main.cjs, the
// program (one file to read and compile at start-up instead of some forty
// modules: measured 25 ms less per run), dist/bulk-worker.js, the helper thread
// of bulk runs, dist/hook-client.cjs, the self-contained hook client that
// `fleet-git enable` copies to a stable per-user place, dist/git-hook.cjs, the
// post-checkout hook's self-contained node side, copied there too, and dist/index.js, the
// library (`import { CopilotAdapter } from 'fleet-git'`). tsc only checks the
// library's modules and writes their type declarations; dist/types/ keeps those
// the library's own declaration refers to.
//
// All of it is built in a folder beside dist/ that then takes dist/'s place, so
// that a test run or a command using dist/ meanwhile is not left without it for
// the whole build, only for the moment of the swap.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');

// The build's tools are development dependencies: in a fresh clone (npm pack before npm ci) one line says so.
for (const tool of ['typescript/bin/tsc', 'esbuild']) {
  try {
    require.resolve(tool);
  } catch {
    process.stderr.write(
      `fleet-git build: ${tool.split('/')[0]} is not installed here: run npm ci first (the build's tools are development dependencies)\n`,
    );
    process.exit(1);
  }
}

// --if-changed (npm test, npm run test:quick): nothing is built when dist/ was built from the same
// inputs (dist/.inputs: a hash of each source and template file's path and bytes, this script's,
// package.json's and its lock's, the tsconfig files'). npm run build and prepack always build.
const inputs = inputsHash();
if (process.argv.includes('--if-changed') && existsSync(join(dist, 'cli.cjs'))) {
  let built = '';
  try {
    built = readFileSync(join(dist, '.inputs'), 'utf8');
  } catch {
    // built before dist/.inputs was written, or never: build
  }
  if (built === inputs) process.exit(0);
}
const building = join(root, `.dist-build-${process.pid}`); // beside dist/: the package root is its parent either way
const declared = mkdtempSync(join(tmpdir(), 'fleet-git-types-'));
process.on('exit', () => {
  rmSync(building, { recursive: true, force: true });
  rmSync(declared, { recursive: true, force: true });
});
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', declared], {
  stdio: 'inherit',
});
// tsc declares every module the library reaches; the types of its API are a few of them.
const kept = new Set();
(function keep(rel) {
  if (kept.has(rel)) return;
  kept.add(rel);
  const to = join(building, 'types', rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(declared, rel), to);
  for (const [, dep] of readFileSync(to, 'utf8').matchAll(/(?:from |import\()['"](\.{1,2}\/[^'"]+)\.js['"]/g))
    keep(join(dirname(rel), `${dep}.d.ts`));
})('index.d.ts');
const esbuild = await import('esbuild');
/** Bundles src/<entry> into dist/<out>, as CommonJS for node 20 unless `more` says otherwise. */
const bundle = (entry, out, more = {}) =>
  esbuild.build({
    entryPoints: [join(root, 'src', entry)],
    outfile: join(building, out),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
    // A package's ES module build first: jsonc-parser's UMD build requires its parts at run time, which a bundle cannot follow.
    mainFields: ['module', 'main'],
    ...more,
  });
// picomatch is loaded only when a glob is given: left to node_modules.
const external = ['picomatch'];
// The command: the loader of the program (src/code-cache.ts).
await bundle('cli.ts', 'cli.cjs', { define: { 'import.meta.dirname': '__dirname' } });
// The program, as CommonJS: a script V8 can cache the compiled code of (src/code-cache.ts).
await bundle('main.ts', 'cli-main.cjs', {
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__fleetUrl' },
  banner: { js: "const __fleetUrl = require('node:url').pathToFileURL(__filename).href;" },
  external,
});
// The helper thread of bulk runs (src/core/bulk/bulk-apply.ts), an ES module: bundled
// CommonJS packages (clipanion) call require(), so it gets one.
await bundle('core/bulk/bulk-worker.ts', 'bulk-worker.js', {
  format: 'esm',
  banner: { js: "import { createRequire as __fleetRequire } from 'node:module';\nconst require = __fleetRequire(import.meta.url);" },
  external,
});
// The post-checkout hook's node side, which the kit carries into the data folder: self-contained,
// picomatch and json5 and the templates' texts in it.
const templates = Object.fromEntries(
  readdirSync(join(root, 'templates')).map((f) => [f, readFileSync(join(root, 'templates', f), 'utf8')]),
);
await bundle('git-hook.ts', 'git-hook.cjs', {
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__fleetUrl', __FLEET_TEMPLATES__: JSON.stringify(templates) },
  banner: { js: "const __fleetUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The hook client: Node built-ins only, for whatever node Copilot's PATH has.
await bundle('copilot/hook-client.ts', 'hook-client.cjs', { target: 'node18' });
// The library, an ES module as package.json's "type" says.
await bundle('index.ts', 'index.js', { format: 'esm', external });
chmodSync(join(building, 'cli.cjs'), 0o755);
writeFileSync(join(building, '.inputs'), inputs);
rmSync(dist, { recursive: true, force: true });
renameSync(building, dist);

/** The hash dist/.inputs holds: what the build reads of the project, each file's path and bytes. */
function inputsHash() {
  const under = (dir) =>
    readdirSync(join(root, dir), { recursive: true })
      .map((p) => `${dir}/${p}`)
      .filter((p) => statSync(join(root, p)).isFile())
      .sort();
  const files = [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build.mjs',
    ...under('src'),
    ...under('templates'),
  ];
  const h = createHash('sha256');
  for (const f of files)
    h.update(`${f}\0`)
      .update(readFileSync(join(root, f)))
      .update('\0');
  return `${h.digest('hex')}\n`;
}
