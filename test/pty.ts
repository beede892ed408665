// Runs a command on a pseudo-terminal, for behaviour that differs on a terminal
// (tables, colours, questions, a progress line). util-linux `script` gives the
// child a pty as stdin, stdout and stderr and forwards what is typed into its
// own stdin. On the pty stdout and stderr are one stream, line ends are \r\n,
// and what is typed is echoed back into the output.
import { start } from './spawn.js';
import { shQuote } from '../src/core/repo/templates.js';

export interface PtyResult {
  /** The exit code of the command (script -e passes it on; 128+n for a signal). */
  code: number | null;
  /** Everything the terminal showed, as written: \r\n line ends, escape codes, the echo of what was typed. */
  raw: string;
  /** `raw` with \r\n made \n. */
  text: string;
}

export interface PtySession {
  /** What the terminal has shown so far. */
  output(): string;
  /** Resolves once `pattern` shows up after the previous match; rejects, with the output so far, after `ms`. */
  waitFor(pattern: string | RegExp, ms?: number): Promise<void>;
  /** Types on the terminal (a line needs its "\n"). */
  type(text: string): void;
  /** The command's exit code and output once it has ended; rejects when it runs past the timeout (it is then killed). */
  done: Promise<PtyResult>;
}

export interface PtyOptions {
  cwd: string;
  env: Record<string, string>;
  /** Kill the command and fail after this long (default 30 s). */
  timeoutMs?: number;
}

/** Starts `argv` (the program and its arguments, never parsed by a shell) on a new pseudo-terminal. */
export function ptySpawn(argv: string[], opts: PtyOptions): PtySession {
  // script runs its -c text with $SHELL: every word is shell-quoted, so hostile paths stay one argument.
  const command = `exec ${argv.map(shQuote).join(' ')}`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const { child, done: exited } = start('script', ['-qfec', command, '/dev/null'], {
    cwd: opts.cwd,
    env: { ...opts.env, SHELL: '/bin/sh' },
    limitMs: timeoutMs,
    typing: true,
  });
  let raw = '';
  let cursor = 0;
  const listeners = new Set<() => void>();
  child.stdout.on('data', (d: string) => {
    raw += d;
    for (const l of [...listeners]) l();
  });

  const done = exited.then((r): PtyResult => {
    child.stdin.destroy();
    for (const l of [...listeners]) l();
    if (r.error)
      throw new Error(
        `cannot run util-linux script (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}): the terminal tests need it (Debian package bsdutils)`,
      );
    if (r.timedOut) throw new Error(`${argv.join(' ')}: still running after ${timeoutMs} ms; the terminal showed:\n${raw}`);
    if (r.stderr) throw new Error(`script: ${r.stderr.trim()}`);
    return { code: r.code, raw, text: raw.replace(/\r\n/g, '\n') };
  });
  done.catch(() => {
    /* reported to whoever awaits it */
  });

  return {
    output: () => raw,
    type: (text) => {
      if (child.stdin.writable) child.stdin.write(text);
    },
    done,
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const rest = raw.slice(cursor);
          const at =
            typeof pattern === 'string'
              ? { index: rest.indexOf(pattern), length: pattern.length }
              : (() => {
                  const m = pattern.exec(rest);
                  return m ? { index: m.index, length: m[0].length } : { index: -1, length: 0 };
                })();
          if (at.index >= 0) {
            cursor += at.index + at.length;
            stop();
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            stop();
            reject(new Error(`the command ended before ${String(pattern)} showed up; the terminal showed:\n${raw}`));
          }
        };
        const timer = setTimeout(() => {
          stop();
          reject(new Error(`${String(pattern)} did not show up within ${ms} ms; the terminal showed:\n${raw}`));
        }, ms);
        const stop = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `argv` on a pseudo-terminal, answering each prompt (in order) as it shows up. */
export async function ptyRun(
  argv: string[],
  opts: PtyOptions & { answers?: Array<[prompt: string | RegExp, answer: string]> },
): Promise<PtyResult> {
  const s = ptySpawn(argv, opts);
  for (const [prompt, answer] of opts.answers ?? []) {
    await s.waitFor(prompt);
    s.type(answer);
  }
  return s.done;
}
