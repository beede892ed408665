// fleet-git help, help COMMAND, usage lines with named values, the nearest option
// for an unknown one, and the completion scripts run by real bash, zsh and fish.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { definedOptions } from '../src/commands/base.js';
import { commandDefinitions } from '../src/commands/command-line.js';
import { needs, sandbox } from './helpers.js';
import { ptySpawn } from './pty.js';
import { shQuote } from '../src/core/repo/templates.js';

const COMMANDS = ['enable', 'disable', 'status', 'setup', 'config', 'scan', 'remove', 'run', 'model', 'doctor', 'uninstall', 'completion'];

describe('help', () => {
  const sb = sandbox();

  test('fleet-git help lists every command; help COMMAND is COMMAND --help; no value is shown as #0', async () => {
    const all = await sb.fleet(sb.dir, 'help');
    assert.equal(all.status, 0, all.stderr);
    for (const c of COMMANDS) assert.match(all.stdout, new RegExp(`fleet-git ${c}\\b`));
    assert.equal(all.stdout, (await sb.fleet(sb.dir, '--help')).stdout);
    assert.doesNotMatch(all.stdout, / #\d/);
    assert.match(all.stdout, /\[--under ROOT\]/);
    // Operands by their names, not clipanion's bare "...".
    assert.doesNotMatch(all.stdout, / \.\.\.$/m);
    // A usage line that does not fit goes on under its command, indented.
    assert.match(all.stdout.replace(/\n {6}/g, ' '), /^ {2}fleet-git remove .* <root> \[root\.\.\.\]$/m);
    assert.match(sb.cli(sb.dir, 'help', 'enable').stdout, /^\$ fleet-git enable \[repo\.\.\.\]$/m);
    for (const c of [...COMMANDS.filter((c) => c !== 'model'), 'model list']) {
      const h = await sb.fleet(sb.dir, 'help', ...c.split(' '));
      assert.equal(h.status, 0, `${c}: ${h.stderr}`);
      assert.equal(h.stdout, (await sb.fleet(sb.dir, ...c.split(' '), '--help')).stdout, c);
      assert.doesNotMatch(h.stdout, / #\d/, c);
      assert.doesNotMatch(h.stdout, / \.\.\.$/m, c);
    }
    const enable = (await sb.fleet(sb.dir, 'help', 'enable')).stdout;
    // The option list stays aligned with the longer names.
    const cols = enable
      .split('\n')
      .filter((l) => /^ {2}--/.test(l))
      .map((l) => /^ {2}\S+(?: [A-Z]+)? +/.exec(l)![0].length);
    assert.ok(cols.length > 3 && new Set(cols).size === 1, enable);
    assert.match(enable, /^ {2}--under ROOT {4,}enable every repository/m);
    const none = await sb.fleet(sb.dir, 'help', 'nosuch');
    assert.equal(none.status, 2);
    assert.equal(none.stderr, 'fleet-git: no command "nosuch": help nosuch (fleet-git help lists the commands)\n');
    // A mistyped command: the nearest one.
    for (const [typed, meant] of [
      ['enabel', 'enable'],
      ['halp', 'help'],
      ['remve', 'remove'],
    ]) {
      const r = await sb.fleet(sb.dir, typed);
      assert.deepEqual([r.status, r.stderr], [2, `fleet-git: no command "${typed}": ${typed} (did you mean fleet-git ${meant}?)\n`]);
    }
  });

  test('an unknown option names the nearest one, or where the options are listed (exit 2)', async () => {
    for (const [args, hint] of [
      [['enable', '--forse'], 'did you mean --force?'],
      [['scan', '--jsn'], 'did you mean --json?'],
      [['remove', '--dryrun', 'x'], 'did you mean --dry-run?'],
      [['enable', '--undr=x'], 'did you mean --under?'],
      // After a folder, where clipanion finds no command at all.
      [['scan', '.', '--jsn'], 'did you mean --json?'],
      [['enable', 'a', 'b', '--forse'], 'did you mean --force?'],
      [['remove', 'x', '--dryrun'], 'did you mean --dry-run?'],
      [['disable', 'a', '--zzzzzz'], 'fleet-git help disable lists its options'],
      [['status', '--zzzzzz'], 'fleet-git help status lists its options'],
    ] as const) {
      const r = await sb.fleet(sb.dir, ...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        new RegExp(
          `^fleet-git: ${args[0]} has no option ${args.find((a) => a.startsWith('-'))!.split('=')[0]}: ${args.join(' ')} \\(${hint.replace(/[?]/g, '\\?')}\\)\\n$`,
        ),
      );
    }
  });
});

describe("clipanion's notation", () => {
  test('named() and definedOptions() read what clipanion 3 writes: `--under #0` for an option with a value, a bare `...` for operands', async () => {
    // Pinned: an upgrade of clipanion that writes these otherwise fails here, not in a user's help.
    const enable = (await commandDefinitions()).find((d) => d.path === 'fleet-git enable')!;
    assert.ok(enable.options.some((o) => o.definition === '--under #0'));
    assert.ok(enable.options.some((o) => o.definition === '-q,--quiet'));
    assert.match(enable.usage, /^fleet-git enable( \[[^\]]+\])* \.\.\.$/);
  });
});

describe('operands', () => {
  const sb = sandbox();
  test('more or fewer operands than a command takes: said as such, with what it takes (exit 2)', () => {
    for (const [args, what] of [
      [['status', 'a', 'b'], 'status takes at most one repo, not "b"'],
      [['doctor', 'a', 'b'], 'doctor takes at most one repo, not "b"'],
      [['setup', 'x'], 'setup takes nothing but options, not "x"'],
      [['remove'], 'remove needs at least one root'],
      [['completion'], 'completion needs a shell'],
    ] as const) {
      const r = sb.cli(sb.dir, ...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stderr, `fleet-git: ${what}: ${args.join(' ')} (fleet-git help ${args[0]} says what it takes)\n`);
    }
    // A command named in part is still offered whole.
    assert.equal(
      sb.cli(sb.dir, 'model').stderr,
      'fleet-git: "model" is not a command on its own: model (did you mean fleet-git model list?)\n',
    );
  });
});

describe('bad command lines', () => {
  const sb = sandbox();
  test("one line in fleet-git's words, none of the argument parser's own (exit 2)", async () => {
    for (const [args, line] of [
      [['enable', '--bogus'], 'enable has no option --bogus: enable --bogus (fleet-git help enable lists its options)'],
      [['enable', '--under'], '--under needs a value: enable --under (fleet-git help enable lists its options)'],
      [['status', '--color'], '--color needs a value: status --color (it takes auto, always, never)'],
      [['enable', '--force=yes'], '--force takes no value: enable --force=yes (fleet-git help enable lists its options)'],
      [['--bogus'], 'unknown option --bogus: --bogus (fleet-git help lists the commands)'],
      [['remove'], 'remove needs at least one root: remove (fleet-git help remove says what it takes)'],
    ] as const) {
      const r = await sb.fleet(sb.dir, ...args);
      assert.deepEqual([r.status, r.stdout, r.stderr], [2, '', `fleet-git: ${line}\n`], args.join(' '));
      assert.doesNotMatch(r.stderr, /Unsupported|Invalid option|positional|Not enough|Command not found|Extraneous|While running/);
    }
    // Short options together are options (-q of enable).
    assert.doesNotMatch((await sb.fleet(sb.dir, 'status', '-qz')).stderr, /-q\b.*no option -q\b/);
  });
});

describe('option values', () => {
  const sb = sandbox();
  test('a negative number after any option that takes a value is its value (`--depth -1` is `--depth=-1`), for every option of every command the definitions give; refused, it is one line', async () => {
    const seen: string[] = [];
    for (const d of await commandDefinitions()) {
      const words = d.path.split(' ').slice(1);
      // The required operands (`remove <root>`), so that only the option is judged.
      const operands = [...d.usage.matchAll(/<[^>]+>/g)].map(() => 'x');
      for (const o of definedOptions(d).filter((o) => o.value)) {
        const what = `${words.join(' ')} ${o.name} -7`;
        const spaced = await sb.fleet(sb.dir, ...words, o.name, '-7', ...operands);
        const bound = await sb.fleet(sb.dir, ...words, `${o.name}=-7`, ...operands);
        assert.doesNotMatch(spaced.stderr, /Not enough arguments|option name|positional/i, what);
        assert.deepEqual([spaced.status, spaced.stdout, spaced.stderr], [bound.status, bound.stdout, bound.stderr], what);
        if (spaced.status !== 0) assert.match(spaced.stderr, /^fleet-git: [^\n]+\n$/, what);
        seen.push(`${words[0]} ${o.name}`);
      }
    }
    // The numeric options among them, and options of other kinds.
    for (const o of ['scan --depth', 'doctor --timeout', 'enable --under', 'scan --ignore', 'run --model']) assert.ok(seen.includes(o), o);
  });
});

describe('completion', () => {
  const sb = sandbox();
  const script = async (shell: string) => {
    const r = await sb.fleet(sb.dir, 'completion', shell);
    assert.equal(r.status, 0, r.stderr);
    const file = join(sb.dir, `completion.${shell}`);
    writeFileSync(file, r.stdout);
    return file;
  };

  test("bash: sourced in real bash, the completion function gives the commands, a command's options, subcommands and folders", async () => {
    const file = await script('bash');
    const complete = (...words: string[]) => {
      const r = spawnSync(
        'bash',
        [
          '--norc',
          '--noprofile',
          '-c',
          `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _fleet_git; printf '%s\\n' "\${COMPREPLY[@]}"; complete -p fleet-git`,
          'bash',
          file,
          ...words,
        ],
        // The sandbox's environment: a caller's BASH_ENV would be run by this bash, --norc or not.
        { cwd: sb.dir, encoding: 'utf8', env: sb.env },
      );
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.deepEqual(complete('fleet-git', '').slice(0, -1), [...COMMANDS, 'help']);
    assert.deepEqual(complete('fleet-git', 'he').slice(0, -1), ['help']);
    assert.deepEqual(complete('fleet-git', 'di').slice(0, -1), ['disable']);
    assert.deepEqual(complete('fleet-git', 'enable', '--u').slice(0, -1), ['--under', '--user']);
    assert.deepEqual(complete('fleet-git', 'model', '').slice(0, -1), ['list']);
    assert.deepEqual(complete('fleet-git', 'help', 'sc').slice(0, -1), ['scan']);
    writeFileSync(join(sb.dir, 'a-file'), '');
    assert.deepEqual(complete('fleet-git', 'enable', '--under', 'hom').slice(0, -1), ['home'], 'a folder, not a file');
    assert.match(complete('fleet-git', '').at(-1)!, /^complete .*-F _fleet_git fleet-git$/);
    // The values of an option or operand that takes one of a few, not folders (a folder named like one shows it is not listed).
    mkdirSync(join(sb.dir, 'bash-folder'), { recursive: true });
    assert.deepEqual(complete('fleet-git', 'completion', '').slice(0, -1), ['bash', 'zsh', 'fish']);
    assert.deepEqual(complete('fleet-git', 'completion', 'ba').slice(0, -1), ['bash']);
    assert.deepEqual(complete('fleet-git', 'completion', '--color', 'never', '').slice(0, -1), ['bash', 'zsh', 'fish']);
    assert.deepEqual(complete('fleet-git', 'status', '--color', '').slice(0, -1), ['auto', 'always', 'never']);
    assert.deepEqual(complete('fleet-git', 'scan', '--color', 'a').slice(0, -1), ['auto', 'always']);
  });

  test('fish: loaded by real fish, complete -C gives the commands and options', { skip: needs('fish') }, async () => {
    const file = await script('fish');
    const complete = (line: string) => {
      // The sandbox's HOME and XDG folders: fish keeps its variables and history there, config or not.
      const r = spawnSync('fish', ['--no-config', '-c', `source $argv[1]; complete -C $argv[2]`, file, line], {
        cwd: sb.dir,
        encoding: 'utf8',
        env: sb.env,
      });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]);
    };
    assert.deepEqual(
      complete('fleet-git di'),
      ['disable', 'doctor'].filter((c) => c.startsWith('di')),
    );
    assert.ok(complete('fleet-git ').includes('enable'));
    assert.deepEqual(complete('fleet-git enable --u').sort(), ['--under', '--user']);
    assert.deepEqual(complete('fleet-git model '), ['list']);
    mkdirSync(join(sb.dir, 'fish-folder'), { recursive: true });
    assert.deepEqual(complete('fleet-git completion ').sort(), ['bash', 'fish', 'zsh']);
    assert.deepEqual(complete('fleet-git completion --color never ').sort(), ['bash', 'fish', 'zsh']);
    assert.deepEqual(complete('fleet-git status --color ').sort(), ['always', 'auto', 'never']);
  });

  test('zsh: accepted by real zsh (zsh -n), and with compinit it registers _fleet_git for fleet-git', { skip: needs('zsh') }, async () => {
    const file = await script('zsh');
    const n = spawnSync('zsh', ['-n', file], { encoding: 'utf8', env: { ...sb.env, ZDOTDIR: sb.dir } });
    assert.equal(n.status, 0, n.stderr);
    const r = spawnSync(
      'zsh',
      [
        '-f',
        '-c',
        `autoload -Uz compinit && compinit -u -D && source "$1" && print -r -- $_comps[fleet-git] && whence -w _fleet_git`,
        'zsh',
        file,
      ],
      { cwd: sb.dir, encoding: 'utf8', env: { ...sb.env, ZDOTDIR: sb.dir } },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '_fleet_git\n_fleet_git: function\n');
  });

  test(
    'zsh: on a terminal, Tab lists the values of an operand or option that takes one of a few, not folders',
    { skip: needs('zsh') || needs('script') },
    async () => {
      const file = await script('zsh');
      mkdirSync(join(sb.dir, 'zsh-folder'), { recursive: true });
      const shell = ptySpawn(['zsh', '-f', '-i'], { cwd: sb.dir, env: { ...sb.env, ZDOTDIR: sb.dir, TERM: 'dumb' } });
      shell.type(
        `PS1='> '; autoload -Uz compinit && compinit -u -D && source ${shQuote(file)}; setopt autolist nolistbeep; print RE''ADY\n`,
      );
      await shell.waitFor(/\nREADY\r\n/);
      /** The words zsh lists under the line for a Tab after `line`, sorted. */
      const listed = async (line: string) => {
        const from = shell.output().length;
        shell.type(`${line}\t`);
        const list = new RegExp(`${line.replace(/[-]/g, '\\$&')}\\r\\r\\n([^\\r]*)\\r\\n`);
        await shell.waitFor(list);
        const words = list.exec(shell.output().slice(from))![1]!.trim().split(/\s+/).sort();
        shell.type('\x15'); // Ctrl-U: an empty line for the next one
        return words;
      };
      assert.deepEqual(await listed('fleet-git completion '), ['bash', 'fish', 'zsh']);
      assert.deepEqual(await listed('fleet-git status --color '), ['always', 'auto', 'never']);
      shell.type('exit\n');
      assert.equal((await shell.done).code, 0);
    },
  );

  test('an unknown shell is exit 2 with one line', async () => {
    const r = await sb.fleet(sb.dir, 'completion', 'tcsh');
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'fleet-git: completion takes bash, zsh or fish, not "tcsh"\n');
  });
});
