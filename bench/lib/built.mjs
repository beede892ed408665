// The project's root, and a bundle of its build, for the benchmarks that run one: they build nothing themselves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The path of dist/NAME; exits with one line when the build has not made it. */
export function built(name) {
  const file = join(ROOT, 'dist', name);
  if (!existsSync(file)) {
    console.error(`bench: ${file} is missing; run npm run build first`);
    process.exit(1);
  }
  return file;
}
