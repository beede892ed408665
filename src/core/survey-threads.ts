// A large scan reads its repositories in two threads: the main one and a
// helper started when the scan starts, so that the helper's start-up (some
// 25 ms) overlaps the walk. Each repository is read by the same assessUnit in
// either thread; only where it runs changes. Whatever goes wrong with the
// helper (no second core, its file missing, an error in it), the main thread
// reads the repositories the helper did not answer for: a scan never fails
// because of it.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../package-root.js';
import { assessUnit, byPath, discoverUnits, rowJson, surveyJson, type RowJson, type SurveyJson, type Unit } from './bulk.js';
import type { RunContext } from './context.js';
import type { DiscoverOptions } from './discover.js';
import { copilotView, type CopilotView } from './user-hooks.js';

/** The helper thread's code: src/core/survey-worker.ts, bundled by the build. */
export const WORKER_FILE = join(PACKAGE_ROOT, 'dist', 'survey-worker.js');

/** What the helper needs to read repositories as the main thread does: plain data, cloned into it. */
export interface HelperData {
  /** A RunContext less its config reader, which the helper makes for itself. */
  ctx: Omit<RunContext, 'config'>;
  /** The CopilotView of the run, with its trusted folders as a list. */
  copilot: Omit<CopilotView, 'trusted'> & { trusted: string[] };
}

/** The HelperData of a run. */
function helperData(ctx: RunContext, copilot: CopilotView): HelperData {
  return { ctx: { env: ctx.env, user: ctx.user, hookFile: ctx.hookFile, gitHook: ctx.gitHook }, copilot: { ...copilot, trusted: copilot.trusted.list() } };
}

interface Helper {
  assess(units: Unit[]): Promise<RowJson[]>;
  stop(): void;
}

function startHelper(data: HelperData): Helper | null {
  if (!existsSync(WORKER_FILE)) return null;
  let worker: Worker;
  try {
    worker = new Worker(WORKER_FILE, { workerData: data });
  } catch {
    return null;
  }
  worker.unref(); // never what keeps the process alive
  let waiting: ((answer: RowJson[] | Error) => void) | null = null;
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    waiting?.(e);
    waiting = null;
  };
  worker.on('error', fail);
  worker.on('messageerror', fail);
  worker.on('exit', (code) => fail(new Error(`the helper thread stopped (exit code ${code})`)));
  worker.on('message', (rows: RowJson[]) => {
    waiting?.(rows);
    waiting = null;
  });
  return {
    assess(units) {
      return new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        waiting = (answer) => (answer instanceof Error ? reject(answer) : resolve(answer));
        worker.postMessage(units);
      });
    },
    stop() {
      void worker.terminate();
    },
  };
}

export interface ThreadOptions {
  /** At most this many threads read repositories (default: 2 when the machine has a second core, else 1). */
  threads?: number;
  /** Fewer repositories than this are read in the main thread alone (default 256: below that the helper costs more than it saves). */
  minUnits?: number;
}

/** scan's survey, as the JSON rows it prints, with the number of threads that read repositories. */
export async function surveyAsJson(roots: string[], ctx: RunContext, opts: DiscoverOptions & ThreadOptions = {}): Promise<SurveyJson & { threads: number }> {
  const threads = opts.threads ?? Math.min(2, availableParallelism());
  const minUnits = opts.minUnits ?? 256;
  const copilot = copilotView(ctx); // Copilot's config.json and the user-level hook file, read once for all rows
  const helper = threads > 1 ? startHelper(helperData(ctx, copilot)) : null;
  try {
    const d = await discoverUnits(roots, opts);
    const read = (units: Unit[]) => units.map((u) => rowJson(assessUnit(u, ctx), copilot));
    const rows = d.rows.map((r) => rowJson(r, copilot));
    let used = 1;
    if (helper && d.units.length > 0 && d.units.length >= minUnits) {
      const half = d.units.length >> 1;
      const theirs = helper.assess(d.units.slice(half)).catch(() => null);
      rows.push(...read(d.units.slice(0, half)));
      const answer = await theirs;
      if (answer) used = 2;
      rows.push(...(answer ?? read(d.units.slice(half))));
    } else {
      rows.push(...read(d.units));
    }
    rows.sort(byPath);
    return { ...surveyJson(d.roots, rows), threads: used };
  } finally {
    helper?.stop();
  }
}
