// Output is for a person unless --json is given, and every reading command has
// --json (issue 11): each one run off a terminal prints words without it, and
// exactly one JSON document (nothing on stderr) with it. The commands that
// only act (setup, run, completion) are the only ones without --json, so a new
// reading command without it fails here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sandbox } from './helpers.js';

const ACTING_ONLY = ['completion', 'run', 'setup'];

describe('--json on every reading command', () => {
  const sb = sandbox('fleet-git-json-');
  const code = sb.dir;
  const enabled = sb.repo('enabled');
  const plain = sb.repo('plain');
  assert.equal(sb.cli(enabled, 'enable').status, 0);

  const READING: Array<[args: string[], cwd: string]> = [
    [['status'], enabled],
    [['scan', code], code],
    [['config'], code],
    [['model', 'list'], code],
    [['doctor'], enabled],
    [['enable', '--dry-run'], plain],
    [['enable', '--under', code, '--dry-run'], code],
    [['disable', '--dry-run'], enabled],
    [['remove', code, '--dry-run'], code],
    [['uninstall', code, '--dry-run'], code],
  ];

  test('off a terminal: words without --json, one JSON document with it', async () => {
    for (const [args, cwd] of READING) {
      const what = args.join(' ');
      const words = await sb.fleet(cwd, ...args);
      // doctor exits 1 here for its one fault (no Copilot CLI on this PATH); every other one 0.
      assert.ok(words.status === 0 || (args[0] === 'doctor' && words.status === 1), `${what}: ${words.status} ${words.stderr}`);
      assert.notEqual(words.stdout.trim(), '', what);
      assert.throws(() => JSON.parse(words.stdout), SyntaxError, `${what} printed JSON without --json`);
      const json = await sb.fleet(cwd, ...args, '--json');
      assert.equal(json.status, words.status, `${what} --json: ${json.stderr}`);
      assert.equal(json.stderr, '', `${what} --json`);
      assert.doesNotThrow(() => JSON.parse(json.stdout), `${what} --json: ${json.stdout.slice(0, 300)}`);
    }
  });

  test('the list of commands: every one has --json but those that only act', () => {
    const help = sb.cli(code, 'help');
    assert.equal(help.status, 0, help.stderr);
    // Each usage line whole (one that does not fit goes on under it, indented).
    const usage = help.stdout
      .replace(/\n {6}/g, ' ')
      .split('\n')
      .filter((l) => /^ {2}fleet-git [a-z]/.test(l));
    assert.ok(usage.length >= 12, help.stdout);
    const without = usage.filter((l) => !l.includes('[--json]')).map((l) => l.split(' ')[3]);
    assert.deepEqual(without.sort(), ACTING_ONLY);
    // And each reading command above is one of those with it.
    for (const [args] of READING) assert.ok(!ACTING_ONLY.includes(args[0]!), args[0]);
  });
});
