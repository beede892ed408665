// The files fleet-git writes live in templates/ as real files; this renders them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

const TEMPLATES = join(PACKAGE_ROOT, 'templates');

/** The templates' texts, where the build put them in the bundle (dist/git-hook.cjs, run from the data folder's kit). */
declare const __FLEET_TEMPLATES__: Record<string, string> | undefined;

const read = new Map<string, string>(typeof __FLEET_TEMPLATES__ === 'undefined' ? [] : Object.entries(__FLEET_TEMPLATES__));

/** Where a template is. */
export function templatePath(name: string): string {
  return join(TEMPLATES, name);
}

/** A template's text, read once per run. */
export function readTemplate(name: string): string {
  let text = read.get(name);
  if (text === undefined) read.set(name, (text = readFileSync(templatePath(name), 'utf8')));
  return text;
}

/** Quotes a value for POSIX sh so that no character in it is ever interpreted. */
export function shQuote(value: string): string {
  return `'${shInQuotes(value)}'`;
}

/**
 * A value for a template's `'{{name}}'`, a placeholder written inside single
 * quotes (so that the template itself is valid shell, for ShellCheck): the
 * same as shQuote once rendered there.
 */
export function shInQuotes(value: string): string {
  return value.replace(/'/g, `'\\''`);
}

/** Replaces every `{{name}}` with its value; an unknown name is a bug, so it throws. */
export function render(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`template value missing: ${name}`);
    return values[name];
  });
}
