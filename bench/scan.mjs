#!/usr/bin/env node
// Benchmark of `fleet-git scan` against `find`, of the same workspace all enabled
// against it not enabled (beside a bare script making the same file-system calls
// per repository, bench/lib/bare-scan.mjs), of a repository with an 80,000-entry index against one
// of one file, and of bulk enable/remove against scan and against a bare script
// making the same file-system changes (bench/lib/bare-bulk.mjs; limit 1.5x), with
// the time per repository, on the synthetic workspace of bench/make-workspace.sh.
// The bulk runs are measured at --repos (2,000) and again at --large (10,000;
// 0: not), each beside its bare floor, with the time per repository at both
// sizes (limit: at 10,000 at most 1.2 times that at 2,000).
//
//   node bench/scan.mjs [--repos 2000] [--large 10000] [--runs 7] [--root DIR] [--settle 30] [--scan-only | --bulk-only]
//
// The workspace is built once into a cache folder under the OS temp folder and
// reused. Every command runs once untimed (warm cache), then the commands are
// timed in turns (one run of each, repeated), so that each pair meets the same
// machine load; the medians and the ratios to the baseline are printed, of the
// wall time and of the CPU time (which the load of a shared machine changes far
// less), with the peak RSS of one extra run under /usr/bin/time -v and the load
// average. --scan-only leaves out the bulk runs (and their minutes of waiting
// for the disk, and the 10,000-repository workspace); --bulk-only measures the
// bulk runs and their bare floors alone (no find, scans or index repositories).
// The whole run, with its 30 s settles, takes some 80 minutes: while working on
// the bulk commands, `--bulk-only --repos 10000 --large 0 --settle 5 --runs 3`
// measures one size with short settles (--runs below 5 only with --bulk-only;
// the README's figures come from the defaults).
//
// To measure one more command, add one line to COMMANDS below.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..');
const MAKE = join(REPO, 'bench', 'make-workspace.sh');
const CLI = join(REPO, 'dist', 'cli.cjs');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const repos = Number(opt('repos', '2000'));
const bulkOnly = args.includes('--bulk-only');
const runs = Math.max(bulkOnly ? 1 : 5, Number(opt('runs', '7')));
const settle = Number(opt('settle', '30'));
const scanOnly = args.includes('--scan-only');
const large = scanOnly ? 0 : Number(opt('large', '10000'));
const wsRoot = (n) => join(tmpdir(), `fleet-git-bench-ws-${n}`);
const ROOT = opt('root', wsRoot(repos));
const node = process.execPath;
// NODE_EXTRA_CA_CERTS makes every node process read and parse that CA bundle
// as it starts (on the machines this was written on it is set, and costs some
// 40 ms of a 65 ms `node -e 0`): something of the machine, not of fleet-git,
// which makes no TLS connection. fleet-git's commands are timed without it, and,
// where it is set, scan once more with it, for the record (no limit).
const CA_VAR = 'NODE_EXTRA_CA_CERTS';
const caSet = !!process.env[CA_VAR];
const nodeEnv = { ...process.env };
delete nodeEnv[CA_VAR];

// ---- the workspace, built once -------------------------------------------------
function ensureWorkspace(root, n) {
  const done = `${root}.ok`; // written only after a complete build
  if (existsSync(done) && existsSync(root)) {
    console.log(`workspace: ${root} (cached)`);
    return;
  }
  if (existsSync(root)) {
    spawnSync('chmod', ['-R', 'u+rwx', root]);
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`workspace: building ${n} repositories into ${root}; this takes a few minutes (at 10,000, half an hour), once...`);
  const t = performance.now();
  const out = execFileSync('bash', [MAKE, root, String(n)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  writeFileSync(done, out);
  console.log(`workspace: ${out.trim()} (built in ${((performance.now() - t) / 1000).toFixed(0)} s)`);
}

// ---- the commands -----------------------------------------------------------------
ensureWorkspace(ROOT, repos);
if (large > 0) ensureWorkspace(wsRoot(large), large);
if (!existsSync(CLI)) {
  console.error(`bench: ${CLI} is missing: run npm run build`);
  process.exit(1);
}
const scan = { name: 'fleet-git scan --json', argv: [node, CLI, 'scan', ROOT, '--json'], env: nodeEnv };

/**
 * enable --under and remove change the repositories: they run on a copy (cp -a)
 * of a cached workspace, removed at the end, with a throwaway HOME so that the
 * per-user files go there and not into the real one. Returns the copy, its
 * environment, a runner of fleet-git in it, and the bare floor's list
 * (bench/lib/bare-bulk.mjs: the repositories and worktrees enable acts on).
 */
function bulkCopy(root) {
  const copy = `${root}-bulk-${process.pid}`;
  const home = `${copy}-home`;
  const env = {
    ...nodeEnv,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(home, 'gitconfig'),
    NO_COLOR: '1',
  };
  execFileSync('cp', ['-a', root, copy]);
  // git records linked worktrees by absolute path (the worktree's .git file and
  // <common>/worktrees/*/gitdir): point the copy's at the copy, or bulk commands on
  // the copy would reach the cached workspace through them.
  const links = execFileSync(
    'find',
    [
      copy,
      '-name',
      'node_modules',
      '-prune',
      '-o',
      '-name',
      '.git',
      '-type',
      'f',
      '-print',
      '-o',
      '-path',
      '*/.git/worktrees/*/gitdir',
      '-print',
    ],
    { encoding: 'utf8' },
  );
  for (const f of links.split('\n').filter(Boolean)) {
    const text = readFileSync(f, 'utf8');
    if (text.includes(`${root}/`)) writeFileSync(f, text.split(`${root}/`).join(`${copy}/`));
  }
  mkdirSync(home, { recursive: true });
  spawnSync('sync'); // the copy's writes go out now, not while find and scan are timed
  const list = `${copy}-list`;
  process.on('exit', () => {
    spawnSync('chmod', ['-R', 'u+rwx', copy]);
    rmSync(copy, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    rmSync(list, { force: true });
    rmSync(`${list}.records`, { recursive: true, force: true }); // the bare script's record entries
  });
  const run = (...a) => spawnSync(node, [CLI, ...a], { env, stdio: 'ignore' });
  const doc = JSON.parse(execFileSync(node, [CLI, 'scan', copy, '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 28 }));
  const lines = [];
  for (const r of doc.repos.filter((r) => r.kind === 'repo')) {
    lines.push(`${existsSync(join(r.path, '.git', 'HEAD')) ? 'repo' : 'worktree'}\t${r.path}`);
    for (const w of r.worktrees ?? []) lines.push(`worktree\t${w.path}`);
  }
  writeFileSync(list, lines.join('\n') + '\n');
  return { copy, env, run, list };
}
const BARE = join(HERE, 'lib', 'bare-bulk.mjs');
const small = bulkCopy(ROOT);
const COPY = small.copy;
const bulkEnv = small.env;
const bulkRun = small.run;
// The copy all enabled, for its scan beside the cached workspace's (the bulk
// round undoes it first: its enable runs after a remove).
if (!bulkOnly) bulkRun('enable', '--under', COPY);
// A repository whose index has 80,000 entries (about 9 MB, paths of 45 bytes,
// one blob for all, no files written), and one with one file, each enabled
// under its own root: what a large repository adds to a scan.
const INDEXED = `${COPY}-index`;
process.on('exit', () => rmSync(INDEXED, { recursive: true, force: true }));
function indexedRepo(name, entries) {
  const dir = join(INDEXED, name, 'repo');
  mkdirSync(dir, { recursive: true });
  const git = (a, input) => execFileSync('git', a, { cwd: dir, env: bulkEnv, input, encoding: 'utf8' }).trim();
  git(['init', '-q', '-b', 'main']);
  const oid = git(['hash-object', '-w', '--stdin'], 'export {};\n');
  let list = '';
  for (let i = 0; i < entries; i++)
    list += `100644 ${oid}\tpackages/pkg-${String(i % 400).padStart(3, '0')}/src/components/module-${String(i).padStart(5, '0')}.tsx\n`;
  git(['update-index', '--index-info'], list);
  if (bulkRun('enable', dir).status !== 0) throw new Error(`enable failed in ${dir}`);
  return join(INDEXED, name);
}
const oneFile = bulkOnly ? null : indexedRepo('one-file', 1);
const largeIndex = bulkOnly ? null : indexedRepo('large-index', 80000);
spawnSync('sync'); // the 9 MB index goes to the disk now, not while the scans are timed
const BARE_SCAN = join(HERE, 'lib', 'bare-scan.mjs');
/**
 * The bulk runs at one size, interleaved with their bare floors (bare, fleet-git,
 * bare, fleet-git), each run after the one that undid it: the bare script's
 * enable, enable --under, the bare script's remove, remove.
 */
function bulkCommands(c, n) {
  const at = `${n} repositories`;
  const bare = (mode) => spawnSync(node, [BARE, mode, c.list], { stdio: 'ignore' });
  return [
    {
      name: `bare script: enable's changes, ${at}`,
      key: `bare-enable@${n}`,
      argv: [node, BARE, 'do', c.list],
      before: () => {
        c.run('remove', c.copy, '--yes');
        bare('undo');
      },
      bulk: n,
    },
    {
      name: `fleet-git enable --under, ${at}`,
      key: `enable@${n}`,
      argv: [node, CLI, 'enable', '--under', c.copy],
      env: c.env,
      okCodes: [0, 1],
      ...(bulkOnly ? {} : { ratioTo: 'scan', limit: n === repos ? 15 : undefined }),
      floor: `bare-enable@${n}`,
      perRepoOf: n === repos ? undefined : `enable@${repos}`,
      before: () => bare('undo'),
      bulk: n,
    },
    {
      name: `bare script: remove's changes, ${at}`,
      key: `bare-remove@${n}`,
      argv: [node, BARE, 'undo', c.list],
      before: () => {
        c.run('remove', c.copy, '--yes');
        bare('do');
      },
      bulk: n,
    },
    {
      name: `fleet-git remove --yes, ${at}`,
      key: `remove@${n}`,
      argv: [node, CLI, 'remove', c.copy, '--yes'],
      env: c.env,
      ...(bulkOnly ? {} : { ratioTo: 'scan', limit: n === repos ? 15 : undefined }),
      floor: `bare-remove@${n}`,
      perRepoOf: n === repos ? undefined : `remove@${repos}`,
      before: () => c.run('enable', '--under', c.copy),
      bulk: n,
    },
  ];
}

/**
 * name, argv, and optionally: ratioTo (the name of the command it is compared
 * with), limit (the most that ratio may be), moreLimit (the most milliseconds
 * its median may exceed that command's), reps (runs in a row each turn, for a
 * command whose difference to another is a few milliseconds), before (run untimed before each
 * timed run, e.g. to undo what the previous run did), bulk (measured in the
 * second round, after find and scan, so that their disk writes never land in
 * the middle of those two: the number of repositories), floor (the key of its
 * bare floor: limit 1.5x), perRepoOf (the key of the same command at --repos:
 * its time per repository at most 1.2 times that one's).
 */
const SCANS = [
  { name: 'find', argv: ['find', ROOT, '-name', 'node_modules', '-prune', '-o', '-name', '.git', '-print', '-prune'] },
  // Timed with the copy's throwaway home, as the enabled copy's scan is: the two differ in the repositories alone.
  { ...scan, key: 'scan', env: bulkEnv, ratioTo: 'find', limit: 3 },
  ...(caSet ? [{ ...scan, name: `${scan.name} (${CA_VAR} set)`, env: process.env, ratioTo: 'find' }] : []),
  {
    name: 'fleet-git scan --json, all enabled (copy)',
    key: 'scan-enabled',
    argv: [node, CLI, 'scan', COPY, '--json'],
    env: bulkEnv,
    ratioTo: 'scan',
    limit: 1.3,
  },
  // The floor of what an enabled repository adds: the same file-system calls
  // per repository made by a bare script (bench/lib/bare-scan.mjs), no walk, no state.
  {
    name: "bare script: scan's reads, not enabled",
    key: 'bare-plain',
    argv: [node, BARE_SCAN, 'plain', small.list, COPY, ROOT],
  },
  {
    name: "bare script: scan's reads, all enabled (copy)",
    key: 'bare-enabled-reads',
    argv: [node, BARE_SCAN, 'enabled', small.list],
    ratioTo: 'bare-plain',
  },
  {
    name: 'bare script: what a stat record would leave (copy)',
    key: 'bare-record',
    argv: [node, BARE_SCAN, 'record', small.list],
    ratioTo: 'bare-plain',
  },
  {
    name: 'scan: one repository of one file, enabled',
    key: 'one-file',
    argv: [node, CLI, 'scan', oneFile, '--json'],
    env: bulkEnv,
    reps: 5,
  },
  {
    name: 'scan: one repository of 80,000 entries, enabled',
    argv: [node, CLI, 'scan', largeIndex, '--json'],
    env: bulkEnv,
    ratioTo: 'one-file',
    moreLimit: 2,
    reps: 5,
  },
];
const COMMANDS = [
  ...(bulkOnly ? [] : SCANS),
  ...(scanOnly ? [] : bulkCommands(small, repos)),
  ...(large > 0 ? bulkCommands(bulkCopy(wsRoot(large)), large) : []),
];
const MAX_RSS_MIB = 150;

// Each command runs under bash, whose `times` then prints the CPU time its
// children took (user and system, to the millisecond): on a machine other work
// keeps loaded, the CPU a command takes varies far less than its wall time, so
// both are printed. (bash costs every command the same few milliseconds.)
const TIMED = '"$@"; s=$?; times >&2; exit $s';
function runOnce(c) {
  const t = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', TIMED, 'bash', ...c.argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1 << 28,
    env: c.env ?? process.env,
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (!(c.okCodes ?? [0]).includes(r.status) && c.name !== 'find') throw new Error(`${c.name} failed (${r.status}): ${r.stderr}`);
  // The last line of `times`: the children's user and system time, as 0m0.052s 0m0.012s.
  const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(r.stderr);
  const cpu = m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN;
  return { ms, cpu };
}
function peakRssMiB(c) {
  if (!existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-v', ...c.argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: c.env ?? process.env,
  });
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  return m ? Number(m[1]) / 1024 : null;
}

// Two rounds: find and scan side by side, then the bulk commands, which change
// some 20,000 files and folders each (their disk writes must not land in the
// middle of the first round).
//
// Each bulk run follows the one that undid it (remove before enable, and the
// other way round), and the disk is given --settle seconds first. Measured on
// this virtual machine (ext4 with discard) without fleet-git: making 2,000
// folders twice and a file in each, then removing them, took 1.6, 1.6, 1.9,
// 2.4, 2.6 and 3.1 s over six rounds back to back, and 0.4 s after 45 s idle.
// Back to back, the bulk runs measured the disk's backlog more than fleet-git
// (enable --under: 1.3, 1.9, 2.1, 2.9, 2.8, 2.8, 3.0, 3.2 s); a user runs
// enable --under once, on a disk at rest. (A sync before each run did not
// help: 4.1 to 4.9 s, measured in an earlier session.) --settle 0 measures back
// to back.
const pause = (s) => {
  if (s > 0) spawnSync('sleep', [String(s)]);
};
const times = new Map(COMMANDS.map((c) => [c, []]));
const cpuTimes = new Map(COMMANDS.map((c) => [c, []]));
// The machine's load average, as each round starts and as it ends: the figures are only as steady as that.
const loads = [];
const noteLoad = (when) => loads.push({ when, avg: loadavg() });
for (const [r, round] of [COMMANDS.filter((c) => !c.bulk), COMMANDS.filter((c) => c.bulk)].entries()) {
  if (round.length === 0) continue;
  if (round.length === 0) continue; // --bulk-only: no scans
  noteLoad(r === 0 ? 'scans' : 'bulk runs');
  for (const c of round) {
    c.before?.();
    runOnce(c);
  } // warm the cache (and the JIT's disk cache)
  for (let i = 0; i < runs; i++) {
    for (const c of round) {
      c.before?.();
      if (c.bulk) pause(settle);
      for (let k = 0; k < (c.reps ?? 1); k++) {
        const r = runOnce(c);
        times.get(c).push(r.ms);
        cpuTimes.get(c).push(r.cpu);
      }
    }
  }
}
noteLoad('end');

if (caSet)
  console.log(`\n${CA_VAR} is set here: fleet-git's commands are timed without it (see the top of this file), and scan once more with it`);
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), node ${process.version}, median of ${runs} runs (of the one-repository scans ${runs * 5}), warm cache${settle > 0 ? `; each bulk run after ${settle} s for the disk to settle` : '; bulk runs back to back'}`,
);
const byKey = new Map(COMMANDS.map((c) => [c.key ?? c.name, c]));
let failed = false;
for (const c of COMMANDS) {
  c.before?.();
  const med = median(times.get(c));
  const rss = peakRssMiB(c);
  let line = `${c.name.padEnd(50)} ${med.toFixed(1).padStart(8)} ms`;
  line += `  (min ${Math.min(...times.get(c)).toFixed(1)}, max ${Math.max(...times.get(c)).toFixed(1)})`;
  if (rss != null) line += `  peak RSS ${rss.toFixed(1)} MiB`;
  if (c.ratioTo) {
    const base = median(times.get(byKey.get(c.ratioTo)));
    const ratio = med / base;
    const ok = c.limit == null || ratio <= c.limit;
    failed ||= !ok;
    line += `  = ${ratio.toFixed(2)}x ${c.ratioTo}${c.limit != null ? ` (limit ${c.limit}x: ${ok ? 'ok' : 'OVER'})` : ''}`;
    if (c.moreLimit != null) {
      const more = med - base;
      const within = more <= c.moreLimit;
      failed ||= !within;
      line += `, ${more >= 0 ? '+' : ''}${more.toFixed(1)} ms (limit +${c.moreLimit} ms: ${within ? 'ok' : 'OVER'})`;
    }
  }
  if (rss != null && c.argv[0] === node && rss > MAX_RSS_MIB) {
    failed = true;
    line += ` (RSS limit ${MAX_RSS_MIB} MiB: OVER)`;
  }
  console.log(line);
  // The CPU time beside it, and its ratio (or difference) to the baseline's: what the load changes least.
  const cpu = median(cpuTimes.get(c));
  if (!Number.isNaN(cpu)) {
    let cl = `${''.padEnd(50)} ${cpu.toFixed(1).padStart(8)} ms CPU`;
    if (c.ratioTo) {
      const base = median(cpuTimes.get(byKey.get(c.ratioTo)));
      cl += `  = ${(cpu / base).toFixed(2)}x ${c.ratioTo}'s CPU`;
      if (c.moreLimit != null) cl += `, ${cpu - base >= 0 ? '+' : ''}${(cpu - base).toFixed(1)} ms`;
    }
    console.log(cl);
  }
  // The bulk runs each undo the last in the same copy: on some disks (ext4 with
  // discard on a virtual machine, here) every such round makes the next slower.
  if (c.bulk)
    console.log(
      `${''.padEnd(50)} runs in order: ${times
        .get(c)
        .map((t) => t.toFixed(0))
        .join(', ')} ms`,
    );
  if (c.bulk) {
    const perRepo = (m, n) => (m / n) * 1000;
    let more = `${perRepo(med, c.bulk).toFixed(0)} µs per repository`;
    if (c.floor) {
      const floor = median(times.get(byKey.get(c.floor)));
      const ratio = med / floor;
      failed ||= ratio > 1.5;
      more += ` against the bare script's ${perRepo(floor, c.bulk).toFixed(0)} µs, making the same changes: ${ratio.toFixed(2)}x (limit 1.5x: ${ratio <= 1.5 ? 'ok' : 'OVER'})`;
    }
    if (c.perRepoOf) {
      const base = byKey.get(c.perRepoOf);
      const ratio = perRepo(med, c.bulk) / perRepo(median(times.get(base)), base.bulk);
      failed ||= ratio > 1.2;
      more += `; per repository ${ratio.toFixed(2)}x that at ${base.bulk} (limit 1.2x: ${ratio <= 1.2 ? 'ok' : 'OVER'})`;
    }
    console.log(`${''.padEnd(50)} ${more}`);
  }
}
// What an enabled repository adds to a scan, beside what the same file-system
// calls alone add, what a stat record would leave of them, and what the limit
// allows (--bulk-only: no scans).
if (!bulkOnly) {
  const per = (a, b, t) => ((median(t.get(byKey.get(a))) - median(t.get(byKey.get(b)))) / repos) * 1000;
  const both = (a, b) => `${per(a, b, times).toFixed(0)} µs (CPU ${per(a, b, cpuTimes).toFixed(0)} µs)`;
  const allowed = ((0.3 * median(times.get(byKey.get('scan')))) / repos) * 1000;
  const allowedCpu = ((0.3 * median(cpuTimes.get(byKey.get('scan')))) / repos) * 1000;
  console.log(
    `an enabled repository adds to a scan ${both('scan-enabled', 'scan')}; the same file-system calls alone add ${both('bare-enabled-reads', 'bare-plain')}; ` +
      `those a stat record would leave, ${both('bare-record', 'bare-plain')}; the limit of 1.3 allows ${allowed.toFixed(0)} µs (CPU ${allowedCpu.toFixed(0)} µs)`,
  );
}
console.log(`load average (1, 5, 15 min): ${loads.map((l) => `${l.when} ${l.avg.map((a) => a.toFixed(1)).join(', ')}`).join('; ')}`);
process.exitCode = failed ? 1 : 0;
