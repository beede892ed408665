// The config file's include/exclude globs mean what picomatch means (as for
// --include/--exclude/--ignore), on the path and each folder above it, `~` the
// home folder taken literally: generated globs and paths, compared with
// picomatch itself. A fixed seed (FLEET_GIT_FUZZ_SEED=random explores, a number
// repeats a run). The clone hook's decisions through git: test/setup.test.ts.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import fc from 'fast-check';
import { checkCloneGlob, cloneGlobMatches, isCloneIncluded } from '../src/core/repo/clone-rules.js';
import { parseUserConfig, UserConfigError } from '../src/core/setup/user-config.js';
import { describe } from 'node:test';
import { repeats } from './helpers.js';

const picomatch = createRequire(import.meta.url)('picomatch') as (g: string, o: object) => (s: string) => boolean;
const seedVar = process.env.FLEET_GIT_FUZZ_SEED;
const SEED = seedVar === 'random' ? Math.floor(Math.random() * 2 ** 31) : seedVar ? Number(seedVar) : 1207;
const RUNS = Number(process.env.FLEET_GIT_FUZZ_RUNS ?? 1);
const HOME = '/home/u';

/** picomatch's answer, as --include gives it (dot, a trailing `/` off), on the path or a folder above it. */
function reference(glob: string, path: string): boolean {
  let g = glob.trim();
  if (g.length > 1) g = g.replace(/\/+$/, '');
  if (g === '~' || g.startsWith('~/')) g = HOME + g.slice(1);
  const m = picomatch(g, { dot: true });
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) if (m(parts.slice(0, i).join('/') || '/')) return true;
  return false;
}

/** A path with a line break is provisioned only when the config has neither include nor exclude (picomatch's `.` stops at one). */
const lineBreak = (p: string) => /[\n\r\u2028\u2029]/.test(p);

// Globs from the supported subset, with the characters a shell or a regular expression could take as special.
const literal = fc.constantFrom(
  'a',
  'b',
  'ab',
  '.',
  '-',
  '_',
  ' ',
  '$x',
  "'",
  '!',
  'c++',
  '+x',
  '@',
  '#',
  '^',
  ',',
  '~',
  '%',
  '&',
  ';',
  '`',
  '=',
  'é',
  '.git',
);
const piece = fc.oneof(
  { weight: 5, arbitrary: literal },
  { weight: 3, arbitrary: fc.constantFrom('*', '**', '***') },
  { weight: 2, arbitrary: fc.constantFrom('[ab]', '[a-b]', '[.a]', '[-a]', '[a-]', '[A-z]', '[0-9]', '[_.]') },
  { weight: 2, arbitrary: fc.constantFrom('{a,b}', '{a*,b}', '{[ab]x,y}', '{.,-}', '{ab,a,b}') },
);
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  {
    weight: 4,
    arbitrary: fc
      .array(piece, { minLength: 1, maxLength: 3 })
      .map((p) => p.join(''))
      .filter((s) => s !== '.' && s !== '..'),
  },
);
const glob = fc
  .tuple(fc.constantFrom('/', '~/', '**/', '~'), fc.array(segment, { minLength: 0, maxLength: 4 }), fc.constantFrom('', '/', ' '))
  .map(
    ([start, segs, end]) =>
      (start === '~' ? (segs.length ? `~/${segs.join('/')}` : '~') : start + segs.join('/')) + (segs.length ? end : ''),
  )
  // Without what checkCloneGlob refuses by design (the refusals are tested below).
  .filter(
    (g) =>
      g.trim() !== '' &&
      g.trim() !== '**/' &&
      !g
        .trim()
        .split('/')
        .some((s) => s === '.' || s === '..') &&
      !/(^|\/)\*\*+\{/.test(g) &&
      !/[\]}]\+/.test(g),
  );

/** A folder name made of the characters globs use. */
const name = fc
  .array(fc.constantFrom('a', 'b', 'x', '.', '-', ' ', '$', "'", '*', '[', 'é', '😀', '\n', 'A', 'z', '{', ',', '\r', '\u2028'), {
    minLength: 1,
    maxLength: 5,
  })
  .map((c) => c.join(''))
  .filter((n) => n !== '.' && n !== '..');

/** Paths near what the glob matches: each of its parts given a string it could match, then changed a little. */
function pathsFor(g: string): fc.Arbitrary<string[]> {
  const words = g.replace(/^~/, HOME).split('/');
  const one = fc
    .tuple(
      fc.array(fc.tuple(name, fc.nat(3), fc.boolean()), { minLength: words.length, maxLength: words.length }),
      fc.array(name, { maxLength: 2 }),
    )
    .map(([fill, tail]) => {
      const segs = words.flatMap((w, i) => {
        const [n, k, keep] = fill[i];
        if (w === '**') return Array.from({ length: k % 3 }, () => n);
        if (keep)
          return [
            w
              .replace(/\{([^,}]*)[^}]*\}/g, '$1')
              .replace(/\[([^\]])[^\]]*\]/g, k === 3 ? '$&' : '$1')
              .replace(/\*+/g, k ? n : ''),
          ];
        return [n];
      });
      const p = [...segs, ...tail].join('/').replace(/\/+/g, '/');
      return p.startsWith('/') ? p : `/${p}`;
    })
    .filter((p) => p.length > 1 && !p.endsWith('/') && !p.split('/').some((s) => s === '.' || s === '..'));
  return fc.array(
    fc.oneof(
      one,
      fc.array(name, { minLength: 1, maxLength: 5 }).map((n) => `/${n.join('/')}`),
    ),
    { minLength: 10, maxLength: 30 },
  );
}

function check(property: fc.IProperty<never> | fc.IProperty<unknown>, numRuns: number): void {
  try {
    fc.assert(property as fc.IProperty<unknown>, { seed: SEED, numRuns: repeats(numRuns) * RUNS });
  } catch (e) {
    throw new Error(`failed with seed ${SEED}: run again with FLEET_GIT_FUZZ_SEED=${SEED}\n${String((e as Error).message).slice(0, 4000)}`);
  }
}

describe(`clone globs mean what picomatch means (seed ${SEED})`, () => {
  it('one glob as include: isCloneIncluded agrees with picomatch on each path', () => {
    check(
      fc.property(
        glob.chain((g) => fc.tuple(fc.constant(g), pathsFor(g))),
        ([g, paths]) => {
          assert.equal(checkCloneGlob(g), null, `${g} is in the subset`);
          const want = paths.map((p) => reference(g, p));
          paths.forEach((p, i) =>
            assert.equal(
              isCloneIncluded({ include: [g], exclude: [] }, p, HOME),
              want[i] && !lineBreak(p),
              `${JSON.stringify(g)} on ${JSON.stringify(p)}`,
            ),
          );
          paths.forEach((p, i) =>
            assert.equal(cloneGlobMatches(g, p, HOME), want[i], `node: ${JSON.stringify(g)} on ${JSON.stringify(p)}`),
          );
        },
      ),
      300,
    );
  });

  it('include and exclude lists together: provisioned when an include matches and no exclude does', () => {
    check(
      fc.property(
        fc
          .tuple(fc.option(fc.array(glob, { maxLength: 3 }), { nil: null }), fc.array(glob, { maxLength: 3 }))
          .chain(([inc, exc]) => fc.tuple(fc.constant(inc), fc.constant(exc), pathsFor([...(inc ?? []), ...exc][0] ?? '/a'))),
        ([include, exclude, paths]) => {
          const c = { include, exclude };
          const any = (globs: string[], p: string) => globs.some((g) => reference(g, p));
          const want = paths.map((p) =>
            include === null && exclude.length === 0 ? true : !lineBreak(p) && (include === null || any(include, p)) && !any(exclude, p),
          );
          paths.forEach((p, i) => assert.equal(isCloneIncluded(c, p, HOME), want[i]));
        },
      ),
      60,
    );
  });

  it('a table of what a glob matches', () => {
    const table: [string, string, boolean][] = [
      ['~/code', '/home/u/code', true],
      ['~/code', '/home/u/code/api', true],
      ['~/code', '/home/u/codex', false],
      ['~/code/', '/home/u/code/a/b', true],
      ['~/code/*', '/home/u/code', false],
      ['~/code/*', '/home/u/code/a/b', true],
      ['~/code/**', '/home/u/code', true],
      ['/srv/*/forks', '/srv/a/forks/lib', true],
      ['/srv/*/forks', '/srv/a/b/forks', false /* `*` never crosses a `/` */],
      ['**/forks', '/srv/a/b/forks/lib', true],
      ['**/forks', '/srv/a/b/forksy', false],
      ['~/code/**/tmp', '/home/u/code/tmp', true],
      ['~/code/**/tmp', '/home/u/code/a/b/tmp/c', true],
      ['~/code/[a-c]*', '/home/u/code/api', true],
      ['~/code/[a-c]*', '/home/u/code/web', false],
      ['~/code/{api,web}', '/home/u/code/web/x', true],
      ['~/code/{api,web}', '/home/u/code/cli', false],
      ['~/code/*.git', '/home/u/code/.git', true],
      ["/srv/it's here", "/srv/it's here/x", true],
      ['/srv/$HOME', '/srv/$HOME', true],
      ['/srv/a b', '/srv/a', false],
      ['~', '/home/u/anything', true],
      ['/', '/anything', true],
    ];
    for (const [g, p, want] of table) {
      assert.equal(reference(g, p), want, `picomatch: ${g} on ${p}`);
      assert.equal(cloneGlobMatches(g, p, HOME), want, `node: ${g} on ${p}`);
    }
  });

  it('the home folder is taken literally, whatever characters it has', () => {
    const home = "/tmp/h*[a]{b,c} (x)'$";
    const c = { include: ['~/code'], exclude: [] };
    for (const [p, want] of [
      [`${home}/code/api`, true],
      ["/tmp/hX[a]{b,c} (x)'$/code", false],
      ["/tmp/hab (x)'$/code", false],
    ] as const) {
      assert.equal(isCloneIncluded(c, p, home), want, `node: ${p}`);
    }
  });

  it('include [] takes no clone; no config takes every clone', () => {
    assert.equal(isCloneIncluded({ include: [], exclude: [] }, '/home/u/code', HOME), false);
    assert.equal(isCloneIncluded({ include: null, exclude: [] }, '/anywhere', HOME), true);
  });

  it('refuses, in one line each, a glob that names no absolute path', () => {
    const refused: [string, RegExp][] = [
      ['code/**', /must start with/],
      ['*/forks', /must start with/],
      ['**forks', /must start with/],
      ['~user/code', /must start with/],
      ['/a/\tb', /control characters/],
    ];
    for (const [g, why] of refused) assert.match(checkCloneGlob(g) ?? 'accepted', why, g);
    for (const g of ['~/a?c', '~/[!a]x', '~/@(a|b)', '/a/../b']) assert.equal(checkCloneGlob(g), null, `${g}: picomatch's, accepted`);
    assert.throws(
      () => parseUserConfig('{ include: ["relative/path"] }', '/f'),
      (e: unknown) => e instanceof UserConfigError && /include\[0\] 'relative\/path': a glob must start with/.test(e.message),
    );
  });
});
