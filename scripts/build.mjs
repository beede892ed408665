// Builds what the installed command runs. tsc compiles src/ into dist/ (the
// library that `import 'fleet-git'` loads, with its type declarations); esbuild
// then bundles two entry points into single files: dist/cli.js, the command
// (one file to read and compile at start-up instead of some forty modules:
// measured 25 ms less per run), and dist/hook-client.cjs, the self-contained
// hook client that `fleet-git enable` copies to a stable per-user place.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
const esbuild = await import('esbuild');
const common = { bundle: true, platform: 'node', minify: false, legalComments: 'none', logLevel: 'warning' };
await esbuild.build({
  ...common,
  // The command, and the helper thread of bulk runs (src/core/bulk-apply.ts).
  entryPoints: { cli: join(root, 'src/cli.ts'), 'bulk-worker': join(root, 'src/core/bulk-worker.ts') },
  outdir: join(root, 'dist'),
  format: 'esm',
  target: 'node20',
  // Bundled CommonJS packages (clipanion) call require(): give the ES module one.
  banner: { js: "import { createRequire as __fleetRequire } from 'node:module';\nconst require = __fleetRequire(import.meta.url);" },
  // fast-glob (picomatch) is loaded only when a glob is given: left to node_modules.
  external: ['fast-glob', 'picomatch'],
});
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'src/copilot/hook-client.ts')],
  outfile: join(root, 'dist/hook-client.cjs'),
  format: 'cjs',
  target: 'node18',
});
chmodSync(join(root, 'dist/cli.js'), 0o755);
