// The command reference has one source, the commands' own definitions: docs/commands.md and
// man/fleet-git.1 are what scripts/docs.ts (npm run docs) makes of them now, the man page renders,
// and each command's help ends with the same exit codes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { commandReference } from '../src/commands/command-line.js';
import { commandsFile, COMMANDS_MD, END, MAN_PAGE, manPage } from '../scripts/docs.js';
import { needs, sandbox } from './helpers.js';

describe('the command reference', async () => {
  const docs = await commandReference();

  test('docs/commands.md is current (npm run docs writes it), its part after the END line kept as written', () => {
    const current = readFileSync(COMMANDS_MD, 'utf8');
    assert.ok(current.includes(END));
    assert.equal(current, commandsFile(docs, current), 'docs/commands.md is not current: run npm run docs');
    for (const d of docs) {
      assert.ok(current.includes(`## ${d.path}\n`), d.path);
      for (const o of d.definition.options) assert.ok(current.includes(`\`${o.definition}\``), `${d.path} ${o.definition}`);
      for (const [, cmd] of d.usage.examples ?? []) assert.ok(current.includes(cmd.replace('$0', 'fleet-git')), cmd);
    }
  });

  test('man/fleet-git.1 is current (npm run docs writes it)', () => {
    assert.equal(readFileSync(MAN_PAGE, 'utf8'), manPage(docs), 'man/fleet-git.1 is not current: run npm run docs');
  });

  test('man -l renders it, without a warning, with every command', { skip: needs('man') }, () => {
    const r = spawnSync('man', ['--warnings', '-l', MAN_PAGE], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^FLEET-GIT\(1\)/);
    for (const d of docs) assert.match(r.stdout, new RegExp(`^ {3}${d.path}$`, 'm'), d.path);
    assert.match(r.stdout, /^EXIT STATUS$/m);
  });

  test("each command's help ends with its exit codes, as the reference lists them", async () => {
    const sb = sandbox('fleet-git-docs-');
    for (const d of docs) {
      const r = await sb.fleet(sb.dir, ...d.path.split(' ').slice(1), '--help');
      assert.equal(r.status, 0, r.stderr);
      // The last section, each code's meaning wrapped under its own column.
      const section = r.stdout.trimEnd().split('\nExit codes\n\n');
      assert.equal(section.length, 2, `${d.path} --help:\n${r.stdout}`);
      const rows = section[1]!.replace(/\n {7}/g, ' ');
      const tail = Object.entries(d.exits)
        .map(([code, what]) => `  ${code}    ${what}`)
        .join('\n');
      assert.equal(rows, tail, `${d.path} --help:\n${r.stdout}`);
    }
  });
});
