// Builds what the installed command runs: the CLI compiled by tsc into dist/,
// and the hook client bundled by esbuild into one self-contained file that
// `fleet-git enable` copies to a stable per-user place.
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
await esbuild.build({
  entryPoints: [join(root, 'src/copilot/hook-client.ts')],
  outfile: join(root, 'dist/hook-client.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(join(root, 'dist/cli.js'), 0o755);
