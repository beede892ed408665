// The user config file and `fleet-git config`: defaults, values from the file,
// one-line errors (the clone globs themselves: clone-globs.test.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sandbox, type Ran } from './helpers.js';

function writeConfig(s: ReturnType<typeof sandbox>, text: string): string {
  const dir = join(s.env.XDG_CONFIG_HOME, 'fleet-git');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'config.json5');
  writeFileSync(file, text);
  return file;
}

function oneLineError(r: Ran): string {
  assert.equal(r.status, 2, r.stdout + r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  return lines[0];
}

describe('scan.roots and scan.ignore', () => {
  it('scan walks scan.roots when given no folder, and scan, enable --under and remove skip scan.ignore', async () => {
    const s = sandbox();
    const a = s.repo('code/a');
    const b = s.repo('code/skipped/b');
    const c = s.repo('elsewhere/c');
    const paths = (r: Ran) => {
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout).repos.map((x: { path: string }) => x.path);
    };
    // No file: the recorded repositories (none yet), not the current folder; '.' is that.
    assert.deepEqual(paths(await s.fleet(join(s.dir, 'elsewhere'), 'scan', '--json')), []);
    assert.deepEqual(paths(await s.fleet(join(s.dir, 'elsewhere'), 'scan', '.', '--json')), [c]);
    writeConfig(s, `{ scan: { roots: ["${join(s.dir, 'code')}", "${join(s.dir, 'elsewhere')}"], ignore: ["skipped"] } }`);
    assert.deepEqual(paths(await s.fleet(s.home, 'scan', '--json')), [a, c]);
    assert.deepEqual(
      paths(await s.fleet(s.home, 'scan', join(s.dir, 'code'), '--json')),
      [a],
      'a folder given replaces scan.roots; scan.ignore still applies',
    );
    const en = await s.fleet(s.home, 'enable', '--under', join(s.dir, 'code'));
    assert.equal(en.status, 0, en.stderr);
    assert.ok(
      existsSync(join(a, '.github/hooks/fleet.json')) && !existsSync(join(b, '.github/hooks/fleet.json')),
      'enable --under skips scan.ignore',
    );
    await s.fleet(b, 'enable');
    const rm = await s.fleet(s.home, 'remove', join(s.dir, 'code'), '--yes');
    assert.equal(rm.status, 0, rm.stderr);
    assert.ok(!existsSync(join(a, '.github')) && existsSync(join(b, '.github/hooks/fleet.json')), 'remove skips scan.ignore');
  });
});

describe('fleet-git config', () => {
  it('a missing file means the defaults, and says so', async () => {
    const s = sandbox();
    const r = await s.fleet(s.dir, 'config', '--json');
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.exists, false);
    assert.equal(doc.file, join(s.env.XDG_CONFIG_HOME, 'fleet-git', 'config.json5'));
    assert.deepEqual(doc.values, {
      include: { value: null, from: 'default' },
      exclude: { value: [], from: 'default' },
      'scan.roots': { value: ['.'], from: 'default' },
      'scan.ignore': { value: [], from: 'default' },
      trust: { value: false, from: 'default' },
      vscode: { value: true, from: 'default' },
    });
    const text = await s.fleet(s.dir, 'config');
    assert.match(text.stdout, /not found: the defaults apply/);
    assert.match(text.stdout, /^include\s+every clone\s+\(default\)$/m);
  });

  it('reads JSON5 with comments, and tells which value came from the file', async () => {
    const s = sandbox();
    writeConfig(
      s,
      `// mine
{
  include: ['~/code/**'], // work and side projects
  exclude: ['**/forks',],
  scan: { roots: ['~/code'] },
}
`,
    );
    const doc = JSON.parse((await s.fleet(s.dir, 'config', '--json')).stdout);
    assert.equal(doc.exists, true);
    assert.deepEqual(doc.values.include, { value: ['~/code/**'], from: 'file' });
    assert.deepEqual(doc.values.exclude, { value: ['**/forks'], from: 'file' });
    assert.deepEqual(doc.values['scan.roots'], { value: ['~/code'], from: 'file' });
    assert.deepEqual(doc.values['scan.ignore'], { value: [], from: 'default' });
    const t = async (p: string) => JSON.parse((await s.fleet(s.dir, 'config', '--json', '--test', p)).stdout).included;
    assert.equal(await t(join(s.home, 'code/work/api')), true);
    assert.equal(await t(join(s.home, 'code/work/forks/lib')), false);
    assert.equal(await t(join(s.home, 'elsewhere/x')), false);
  });

  it('an invalid file: one line naming the file and the line, exit 2', async () => {
    const s = sandbox();
    const file = writeConfig(s, '{\n  include: ["~/code"],\n  exclude: [oops],\n}\n');
    let line = oneLineError(await s.fleet(s.dir, 'config'));
    assert.ok(line.startsWith(`fleet-git: ${file}:3: `), line);
    assert.match(line, /invalid character 'o'/);

    writeConfig(s, '{\n  // a string, not a list\n  include: "~/code",\n}\n');
    line = oneLineError(await s.fleet(s.dir, 'config', '--json'));
    assert.ok(line.startsWith(`fleet-git: ${file}:3: `), line);
    assert.match(line, /include must be a list of strings, not a string/);

    writeConfig(s, '{\n  scan: {\n    roots: ["~"],\n    ignroe: [],\n  },\n}\n');
    line = oneLineError(await s.fleet(s.dir, 'config'));
    assert.match(line, /:4: unknown key 'scan\.ignroe'/);

    writeConfig(s, '{ exclude: ["a/c"] }');
    line = oneLineError(await s.fleet(s.dir, 'config'));
    assert.equal(
      line,
      `fleet-git: ${file}:1: exclude[0] 'a/c': a glob must start with '/', '~/' or '**/' (it is matched against the clone's absolute path): fix it or move it aside`,
    );

    writeConfig(s, '[1, 2]');
    assert.match(oneLineError(await s.fleet(s.dir, 'config')), /must hold one object/);
  });

  it('a syntax error names the line, the token and what to do; an empty file (or one of comments) is the defaults', async () => {
    const s = sandbox();
    const file = writeConfig(s, '{\n  trust: tru,\n}\n');
    assert.equal(
      oneLineError(await s.fleet(s.dir, 'config')),
      `fleet-git: ${file}:2: invalid character ',' in 'tru,' (column 13): fix it or move it aside`,
    );
    const repo = s.repo('proj');
    for (const text of ['', '\n  \n', '// nothing yet\n/* later */\n']) {
      writeConfig(s, text);
      const r = await s.fleet(s.dir, 'config', '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout).values.trust, { value: false, from: 'default' }, JSON.stringify(text));
      assert.equal((await s.fleet(repo, 'enable')).status, 0, JSON.stringify(text));
    }
  });

  it('a syntax error: every command that reads the file says the same line and exits 2, status too', async () => {
    const s = sandbox();
    const repo = s.repo('proj');
    const file = writeConfig(s, '{\n  trust: tru,\n}\n');
    const want = `fleet-git: ${file}:2: invalid character ',' in 'tru,' (column 13): fix it or move it aside`;
    for (const args of [['config'], ['enable'], ['scan'], ['setup'], ['status'], ['status', '--json']]) {
      const r = await s.fleet(repo, ...args);
      assert.equal(oneLineError(r), want, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    assert.ok(!existsSync(join(repo, '.github')), 'nothing enabled');
  });

  it('the way out works with an invalid file: disable, remove and uninstall (and --dry-run) run, saying once that it was ignored', async () => {
    const s = sandbox();
    const repo = s.repo('code/proj');
    const root = join(s.dir, 'code');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    const file = writeConfig(s, '{\n  trust: tru,\n}\n');
    const ignored = `fleet-git: ignored the config file, using the defaults: ${file}:2: `;
    const once = (r: Ran, args: string[]) => {
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr.split(ignored).length - 1, args[0] === 'disable' ? 0 : 1, `${args.join(' ')}: ${r.stderr}`);
    };
    for (const args of [
      ['remove', root, '--dry-run'],
      ['uninstall', root, '--dry-run'],
      ['uninstall', root, '--dry-run', '--json'],
    ])
      once(await s.fleet(s.dir, ...args), args);
    assert.ok(existsSync(join(repo, '.github/hooks/fleet.json')), 'a dry run changes nothing');
    once(await s.fleet(repo, 'disable'), ['disable']);
    assert.ok(!existsSync(join(repo, '.github')));
    writeConfig(s, '');
    assert.equal((await s.fleet(repo, 'enable')).status, 0);
    writeConfig(s, '{\n  trust: tru,\n}\n');
    once(await s.fleet(s.dir, 'remove', root, '--yes'), ['remove']);
    assert.ok(!existsSync(join(repo, '.github')));
    assert.equal((await s.fleet(repo, 'enable', '--trust')).status, 0);
    once(await s.fleet(s.dir, 'uninstall', root, '--yes'), ['uninstall']);
    assert.ok(!existsSync(join(repo, '.github')) && !existsSync(join(s.env.XDG_DATA_HOME, 'fleet-git')), 'uninstalled');
    assert.equal(readFileSync(file, 'utf8'), '{\n  trust: tru,\n}\n', 'the config file stays as it was');
  });

  it('an invalid file stops setup too, with exit 2 and nothing written', async () => {
    const s = sandbox();
    writeConfig(s, '{ include: [1] }');
    const before = s.git(s.dir, 'config', '--global', '--list');
    const line = oneLineError(await s.fleet(s.dir, 'setup'));
    assert.match(line, /include\[0\] must be a string, not a number/);
    assert.equal(s.git(s.dir, 'config', '--global', '--list'), before);
  });
});

describe('the trust key', () => {
  it('trust: true makes enable and enable --under list repositories in trustedFolders; config shows where it came from', async () => {
    const s = sandbox();
    const one = s.repo('one');
    const under = [s.repo('code/a'), s.repo('code/b')];
    const trusted = () => JSON.parse(readFileSync(join(s.env.COPILOT_HOME, 'config.json'), 'utf8')).trustedFolders;
    writeConfig(s, '{\n  // copilot -p sessions need it\n  trust: true,\n}\n');
    assert.deepEqual(JSON.parse((await s.fleet(s.dir, 'config', '--json')).stdout).values.trust, { value: true, from: 'file' });
    assert.match((await s.fleet(s.dir, 'config')).stdout, /^trust\s+true\s+\(from the file\)$/m);
    let r = await s.fleet(one, 'enable');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Copilot now trusts /);
    assert.deepEqual(trusted(), [one]);
    r = await s.fleet(s.dir, 'enable', '--under', join(s.dir, 'code'));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(trusted(), [one, ...under]);
    // trust: false (and no key) leaves trustedFolders alone.
    const other = s.repo('other');
    writeConfig(s, '{ trust: false }');
    assert.equal((await s.fleet(other, 'enable')).status, 0);
    assert.deepEqual(trusted(), [one, ...under]);
    assert.equal(JSON.parse((await s.fleet(other, 'status', '--json')).stdout).copilot.trusted, false);
  });

  it('a trust value that is not true or false: one line naming the file and line, exit 2, nothing enabled', async () => {
    const s = sandbox();
    const repo = s.repo('proj');
    const file = writeConfig(s, '{\n  include: ["~/code"],\n  trust: "yes",\n}\n');
    for (const args of [['config'], ['enable'], ['enable', '--under', s.dir]]) {
      const line = oneLineError(await s.fleet(repo, ...args));
      assert.equal(
        line,
        `fleet-git: ${file}:3: trust must be true or false, not a string ("yes"): fix it or move it aside`,
        args.join(' '),
      );
    }
    assert.ok(!existsSync(join(repo, '.github')), 'nothing was enabled');
    writeConfig(s, '{ trusted: true }');
    assert.match(oneLineError(await s.fleet(repo, 'config')), /unknown key 'trusted' \(known: include, exclude, scan, trust, vscode\)/);
  });
});
