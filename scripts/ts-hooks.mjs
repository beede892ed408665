// The module hooks scripts/ts-loader.mjs registers for a test run (scripts/test.mjs): a TypeScript
// file of the project is answered with its JavaScript, which scripts/test.mjs had esbuild make for
// every one of them before the run (FLEET_GIT_TEST_JS: that folder, the project's tree inside). The
// module keeps its own URL, so import.meta.url and import.meta.dirname are those of the .ts file.
// An import of `./x.js` finds `./x.ts`, as TypeScript's NodeNext resolution means it. JSON is given
// as a module of its own, without node 20's warning that JSON modules are experimental. The hooks are
// plain functions: node's registerHooks calls them as they are, register awaits what they return.
import { existsSync, readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const js = process.env.FLEET_GIT_TEST_JS;

/** Where esbuild put the JavaScript of `file` (a .ts file of the project), or null; asked once a file (resolve, then load). */
const found = new Map();
function compiled(file) {
  if (!js || !file.endsWith('.ts')) return null;
  if (found.has(file)) return found.get(file);
  const rel = relative(root, file);
  const out = rel.startsWith(`..${sep}`) || rel.includes(`${sep}node_modules${sep}`) ? null : `${js}/${rel.slice(0, -3)}.js`;
  const answer = out && existsSync(out) ? out : null;
  found.set(file, answer);
  return answer;
}

export function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && /^(\.{1,2}\/|\/|file:)/.test(specifier) && context.parentURL?.startsWith('file:')) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (compiled(fileURLToPath(ts))) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export function load(url, context, next) {
  if (url.startsWith('file:')) {
    const file = fileURLToPath(url);
    const out = compiled(file);
    if (out) return { format: 'module', source: readFileSync(out, 'utf8'), shortCircuit: true };
    if (file.endsWith('.json') && context.importAttributes?.type === 'json')
      return { format: 'module', source: `export default ${readFileSync(file, 'utf8')};`, shortCircuit: true };
  }
  return next(url, context);
}
