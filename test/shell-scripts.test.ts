// The shell fleet-git writes and runs: the templates as they are in the
// package (templates/*.sh, templates/post-checkout) and as fleet-git renders
// them into a repository and its data folder (each event's hook command, the
// git hook and setup's copy, hook.sh and post-checkout.sh that they source, the command of
// another client's hook file). Two checks over them: no syntax newer than
// bash 3.2 (macOS's /bin/bash), which bash 5 runs without a word, so only a
// lint finds it; and ShellCheck, all as POSIX sh (VS Code runs the Copilot
// hook commands with /bin/sh, which is dash on Debian and Ubuntu), where a
// finding is fixed or disabled in the script with its reason.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { renderClientHookFile } from '../src/core/repo/hook-file.js';
import { userPaths } from '../src/paths.js';
import { needs, ROOT, sandbox } from './helpers.js';

const TEMPLATES = join(ROOT, 'templates');

/** Syntax and variables bash 3.2 does not have (bash 5 runs them without a word), each with the release that brought it, and what bash 3.2 runs wrong. */
const NEWER_THAN_32: Array<[RegExp, string]> = [
  [/\b(mapfile|readarray)\b/, 'mapfile/readarray (bash 4.0)'],
  [/\$\{[!#]?\w+(\[[^\]]*\])?(\^\^?|,,?)/, 'case modification ${x,,} ${x^^} (bash 4.0)'],
  [/\$\{[!#]?\w+(\[[^\]]*\])?@[A-Za-z]\}/, 'a transformation ${x@Q} (bash 4.4)'],
  [/\b(declare|local|typeset|readonly)\s+-[a-zA-Z]*[AnluNg]/, 'declare -A/-n/-l/-u/-g (bash 4.0 to 4.3)'],
  [/\blocal\s+-(\s|;|$)/m, 'local - (bash 4.4)'],
  [/\|&/, '|& (bash 4.0)'],
  [/&>>/, '&>> (bash 4.0)'],
  [/\bcoproc\b/, 'coproc (bash 4.0)'],
  [/\bwait\s+(-\w+\s+)*-[a-z]*[nfp]\b/, 'wait -n/-f/-p (bash 4.3 to 5.1)'],
  [/;;&|(^|[^;]);&/m, 'case ;& and ;;& (bash 4.0)'],
  [/\$\{\w+\[\s*-\d|\b\w+\[\s*-\d+\s*\]=/, 'a negative array subscript (bash 4.3)'],
  [/\bprintf\s+-v\s+\w+\[/, 'printf -v into an array element (bash 4.1)'],
  [/\$\{\w+:[^}:]*:\s*-\d/, 'a negative length ${x:0:-1} (bash 4.2)'],
  [/\bread\b[^\n;|&]*\s-[a-zA-Z]*[iN]\b/, 'read -i/-N (bash 4.0, 4.1)'],
  [/\bread\b[^\n;|&]*-t\s*\d*\.\d/, 'a fraction of a second for read -t (bash 4.0)'],
  [/%\([^)]*\)T/, "printf's %(...)T (bash 4.2)"],
  [/\[\[?\s+-v\s/, 'test -v (bash 4.2)'],
  [/(^|\s)\{[A-Za-z_]\w*\}[<>]/m, 'a file descriptor named {fd}> (bash 4.1)'],
  [/\{-?\d+\.\.-?\d+\.\.-?\d+\}|\{-?0\d+\.\.-?\d+\}/, 'a brace range with a step or zero padding (bash 4.0)'],
  [
    /\bshopt\s+-[su]\s+(\w+\s+)*(globstar|lastpipe|autocd|checkjobs|direxpand|dirspell|globasciiranges|compat\d+|assoc_expand_once|localvar_inherit|localvar_unset|patsub_replacement|inherit_errexit|progcomp_alias|complete_fullquote|varredir_close|noexpand_translation)\b/,
    'a shopt option bash 3.2 does not have',
  ],
  [
    /\$\{?(BASHOPTS|BASH_ARGV0|BASH_COMPAT|BASH_LOADABLES_PATH|EPOCHREALTIME|EPOCHSECONDS|BASHPID|SRANDOM|READLINE_ARGUMENT)\b/,
    'a variable bash 3.2 does not have',
  ],
  // Not newer syntax, a bash 3.2 bug (3.2.48, and 3.2.57 as macOS ships it, built from Apple's source): after it,
  // the shell spins at exit until it is killed. So a hook that did it held Copilot for the hook's whole timeout.
  [/\bcommand\s+exec\b/, 'command exec (bash 3.2 spins at exit after it)'],
];

/** Names assigned from EPOCHREALTIME, EPOCHSECONDS or BASHPID and then tested for being empty: the fallback bash 3.2 needs. */
function guardedClockUses(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of text.matchAll(/\b([A-Za-z_]\w*)=(\$\{?(EPOCHREALTIME|EPOCHSECONDS|BASHPID)\b[^\s;]*)/g)) {
    const name = m[1]!;
    const tested = new RegExp(`\\[\\s+-[nz]\\s+"?\\$\\{?${name}\\b|\\$\\{${name}:?-`).test(text);
    if (tested) spans.push([m.index! + name.length + 1, m.index! + m[0].length]);
  }
  return spans;
}

/** The script without its comments (a `#` at the start of a word, to the end of the line). */
const code = (text: string) => text.replace(/(^|\s)#.*$/gm, '$1');

/** What in `text` bash 3.2 would not run as bash 5 does: one line per finding, with its line number. */
export function newerThan32(text: string): string[] {
  const body = code(text);
  const guarded = guardedClockUses(body);
  const found: string[] = [];
  for (const [re, what] of NEWER_THAN_32) {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of body.matchAll(g)) {
      const at = m.index!;
      if (what.startsWith('a variable') && /EPOCH|BASHPID/.test(m[0]) && guarded.some(([a, b]) => at >= a && at < b)) continue;
      found.push(`line ${body.slice(0, at).split('\n').length}: ${what}: ${m[0].trim()}`);
    }
  }
  return found;
}

/** The scripts fleet-git writes, as one sandbox has them after enable and setup (with include and exclude rules). */
function rendered(): Array<{ name: string; text: string; shell: 'sh' | 'bash' | null }> {
  const sb = sandbox('fleet-git-shell-');
  const paths = userPaths(sb.env, sb.home);
  const repo = sb.repo('proj');
  assert.equal(sb.cli(repo, 'enable').status, 0);
  mkdirSync(paths.configDir, { recursive: true });
  writeFileSync(join(paths.configDir, 'config.json5'), "{ include: ['~/code', '/srv/{a,b}*/**'], exclude: ['**/tmp-*', '~/code/old'] }\n");
  const setup = sb.cli(repo, 'setup');
  assert.equal(setup.status, 0, setup.stderr);
  const out: Array<{ name: string; text: string; shell: 'sh' | 'bash' | null }> = [];
  // Each event's command, after the template's own lines before it (the ShellCheck directive, with its reasons).
  const header = readFileSync(join(TEMPLATES, 'hook-command.sh'), 'utf8').trim().split('\n').slice(0, -1).join('\n');
  const commands = (file: string) =>
    Object.values(JSON.parse(file).hooks as Record<string, Array<{ bash: string }>>).map((entries) => entries[0]!.bash);
  for (const [i, cmd] of commands(readFileSync(join(repo, '.github', 'hooks', 'fleet.json'), 'utf8')).entries())
    out.push({ name: `hook command ${i}`, text: `${header}\n${cmd}\n`, shell: 'sh' });
  for (const [i, cmd] of commands(renderClientHookFile('/opt/fleet/hook client.js')).entries())
    out.push({ name: `another client's hook command ${i}`, text: `${cmd}\n`, shell: 'sh' });
  out.push({ name: 'the git hook', text: readFileSync(join(repo, '.git', 'hooks', 'post-checkout'), 'utf8'), shell: 'sh' });
  // The data folder: the scripts the hooks source, setup's hook copy (git's sample hooks are git's).
  (function walk(dir: string) {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!name.endsWith('.sample') && (name.endsWith('.sh') || /^#!\/bin\/(ba)?sh/.test(readFileSync(p, 'utf8').slice(0, 12))))
        out.push({ name: relative(paths.dataDir, p), text: readFileSync(p, 'utf8'), shell: dialect(readFileSync(p, 'utf8')) });
    }
  })(paths.dataDir);
  return out;
}

/** sh for a #!/bin/sh script or one that says `shellcheck shell=sh`, bash likewise; null when it says neither. */
function dialect(text: string): 'sh' | 'bash' | null {
  if (/^#!\/bin\/sh\b/.test(text) || /^# shellcheck shell=sh\b/m.test(text)) return 'sh';
  if (/^#!\/bin\/bash\b/.test(text) || /^# shellcheck shell=bash\b/m.test(text)) return 'bash';
  return null;
}

const templates = readdirSync(TEMPLATES)
  .filter((n) => n.endsWith('.sh') || n === 'post-checkout')
  .map((n) => ({ name: `templates/${n}`, text: readFileSync(join(TEMPLATES, n), 'utf8') }));
const scripts = rendered();

describe('no syntax newer than bash 3.2', () => {
  test('the lint finds each construct it knows, and none in what bash 3.2 runs', () => {
    const newer: Record<string, string> = {
      mapfile: 'mapfile -t lines <f',
      readarray: 'readarray a <f',
      lower: 'echo "${x,,}"',
      upper: 'y=${x^^}',
      first: 'y=${x^}',
      quote: 'echo "${x@Q}"',
      assoc: 'declare -A m',
      localAssoc: 'f() { local -A m; }',
      nameref: 'declare -n r=x',
      localDash: 'f() { local -; set -f; }',
      pipeBoth: 'a |& b',
      appendBoth: 'a &>>log',
      coproc: 'coproc cat',
      waitN: 'wait -n',
      fallThrough: 'case $x in a) echo;& b) echo;; esac',
      testNext: 'case $x in a) echo;;& b) echo;; esac',
      negative: 'echo "${a[-1]}"',
      printfArray: 'printf -v a[1] %s x',
      negativeLength: 'echo "${x:0:-1}"',
      readInitial: 'read -r -i text x',
      readFraction: 'read -t 0.5 x',
      printfTime: "printf '%(%s)T' -1",
      testV: '[ -v x ]',
      namedFd: 'exec {fd}>f',
      braceStep: 'echo {1..10..2}',
      globstar: 'shopt -s globstar',
      realtime: 'f=$s/$EPOCHREALTIME.ev',
      bashpid: 'echo $BASHPID',
      unguarded: 't=${EPOCHREALTIME/./}; f=$s/$t.ev',
      commandExec: 'command exec 2>>"$log"',
    };
    for (const [what, line] of Object.entries(newer)) assert.equal(newerThan32(`${line}\n`).length, 1, `${what}: ${line}`);
    const ok = [
      'x=${y:-z}; n=${#x}; p=${x/a/b}; q=${x##*/}; r=${x%%.*}; [ $# -ge 1 ] || exit',
      'v=$(</dev/stdin); a=(1 2); a+=(3); echo "${a[@]}" "${x: -1}" "${!a[@]}"',
      '[[ $x =~ ^a ]] && echo; printf -v y %s x; echo {1..3}; read -r -d "" x; read -t 5 x',
      't=${EPOCHREALTIME/[.,]/}; f=$s/${t:-n}.$$.ev; [ -n "$t" ] || echo',
      'x=1 # mapfile in a comment, ${x,,} too',
      'case $x in a) echo ;; esac; wait $!; { a; } >/dev/null 2>&1; a &>/dev/null',
    ];
    for (const line of ok) assert.deepEqual(newerThan32(`${line}\n`), [], line);
  });

  for (const s of [...templates, ...scripts])
    test(s.name, () => {
      assert.deepEqual(newerThan32(s.text), []);
    });

  test('every template is checked as fleet-git renders it', () => {
    const names = scripts.map((s) => basename(s.name));
    for (const t of ['hook.sh', 'post-checkout.sh', 'post-checkout']) assert.ok(names.includes(t), t);
    assert.ok(scripts.some((s) => s.name.startsWith('hook command')));
    assert.ok(scripts.some((s) => s.name.startsWith("another client's")));
    assert.deepEqual(
      templates.map((t) => t.name),
      ['hook-command.sh', 'fleet-client-command.sh', 'hook.sh', 'post-checkout', 'post-checkout.sh'].map((n) => `templates/${n}`).sort(),
    );
  });
});

describe('ShellCheck', () => {
  const skip = needs('shellcheck');
  for (const s of scripts)
    test(`${s.name} (${s.shell})`, { skip }, () => {
      assert.equal(s.shell, 'sh', 'the script says it is POSIX sh (#!/bin/sh, or a line # shellcheck shell=sh)');
      const r = spawnSync('shellcheck', ['-s', s.shell!, '-f', 'gcc', '-'], { input: s.text, encoding: 'utf8' });
      assert.equal(r.error, undefined);
      assert.deepEqual(
        r.stdout.split('\n').filter(Boolean),
        [],
        `shellcheck -s ${s.shell} finds these (fix them, or disable one in the script with its reason)`,
      );
      assert.equal(r.status, 0, r.stderr);
    });
});
