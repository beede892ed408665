// Whether output is coloured, decided in one place, and the colours themselves
// through Node's util.styleText (never escape codes written by hand).
//
// --color=always|never decides; with auto (the default), FORCE_COLOR (set, and
// not 0 or false) turns colour on and NO_COLOR (set, not empty) turns it off, as
// Node reads them, FORCE_COLOR first; otherwise colour is on for a terminal
// whose TERM is not dumb. The decision is made here and not left to styleText,
// whose own checks differ between Node 20 releases (20.12 coloured always;
// 20.20 looks at process.stdout and process.env, not the stream and
// environment a command was given), so styleText is called with its stream
// check off. A Node without styleText (before 20.12) prints no colour.
import * as util from 'node:util';
import { UsageError } from './errors.js';

/** The values --color takes. */
export const COLOUR_MODES = ['auto', 'always', 'never'] as const;
export type ColourMode = (typeof COLOUR_MODES)[number];
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

/** The --color value (undefined: auto); anything else is a usage error. */
export function colourMode(value: string | undefined): ColourMode {
  if (value === undefined) return 'auto';
  if ((COLOUR_MODES as readonly string[]).includes(value)) return value as ColourMode;
  throw new UsageError(`--color takes auto, always or never, not "${value}"`);
}

/** The --color value in a command line, before it is parsed (for clipanion's own help and errors). */
export function colourInArgv(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i].startsWith('--color=')) found = argv[i].slice('--color='.length);
    else if (argv[i] === '--color') found = argv[i + 1];
  }
  return found;
}

/** Whether to colour what goes to `stream`. */
export function useColour(mode: ColourMode, stream: unknown, env: Record<string, string | undefined>): boolean {
  if (mode !== 'auto') return mode === 'always';
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR) return false;
  return (stream as { isTTY?: boolean }).isTTY === true && env.TERM !== 'dumb';
}

const styleText = (util as { styleText?: (format: string, text: string, opts?: { validateStream?: boolean }) => string }).styleText;

/** A painter: the text in the styles when colour is on, the text as it is otherwise. */
export function painter(on: boolean): (styles: readonly Style[], text: string) => string {
  if (!on || typeof styleText !== 'function') return (_s, text) => text;
  return (styles, text) => styles.reduceRight((t, s) => styleText(s, t, { validateStream: false }), text);
}
