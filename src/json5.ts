// JSON5 (JSON with comments: fleet-git's config file, Copilot's config.json),
// loaded the first time such a file is there to parse: most runs have none.
import { createRequire } from 'node:module';

let json5: { parse(text: string): unknown } | undefined;

/** Gives the module json5 itself: a bundle that carries it (dist/git-hook.cjs, which runs outside fleet-git's folder). */
export function provideJson5(j: { parse(text: string): unknown }): void {
  json5 = j;
}

export function parseJson5(text: string): unknown {
  json5 ??= createRequire(import.meta.url)('json5') as { parse(text: string): unknown };
  return json5.parse(text);
}
