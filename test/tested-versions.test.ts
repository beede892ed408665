// What the package and docs/platforms.md say is tested is what .ci/run tests: package.json's engines name the Node
// majors of .ci/matrix, and the Tested versions section names the oldest supported Copilot CLI
// (package.json, fleet-git.copilot.oldest, which .ci/run runs the end-to-end files on) and the pinned newest.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const matrix = readFileSync(join(ROOT, '.ci', 'matrix'), 'utf8');
const platforms = readFileSync(join(ROOT, 'docs', 'platforms.md'), 'utf8');
const section = platforms.slice(platforms.indexOf('## Tested versions'));

test('engines names each Node major of .ci/matrix, and the newest as an open end', () => {
  const majors = /^NODE_MAJORS=\(([^)]*)\)$/m.exec(matrix)?.[1].split(' ');
  assert.ok(majors, 'no NODE_MAJORS=(...) line in .ci/matrix');
  assert.equal(majors.at(-1), 'latest', 'the matrix ends with the newest release');
  const ranges: string[] = manifest.engines.node.split(' || ');
  assert.deepEqual(
    ranges.map((r) => /^(\^|>=)(\d+)\./.exec(r)?.[2]).slice(0, -1),
    majors.slice(0, -1),
    `engines ${manifest.engines.node} against the matrix ${majors.join(' ')}`,
  );
  assert.match(ranges.at(-1)!, /^>=\d+\.\d+\.\d+$/, 'the last range is open: the newest release, tested in each run');
});

test('docs/platforms.md names the Copilot range that is tested: the oldest supported and the pinned newest', () => {
  assert.ok(section.startsWith('## Tested versions'), 'docs/platforms.md has no Tested versions section');
  const oldest = manifest['fleet-git']?.copilot?.oldest;
  const pinned = manifest.devDependencies['@github/copilot'];
  assert.match(oldest, /^\d+\.\d+\.\d+$/);
  assert.ok(section.includes(`${oldest} to ${pinned}`), `the section does not say "${oldest} to ${pinned}"`);
  assert.ok(section.includes(manifest.engines.node), `the section does not quote engines (${manifest.engines.node})`);
});
