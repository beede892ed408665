// What is wrong with a command line that matches no command, found from the
// commands' own definitions (their words, options and operands) and never read
// from clipanion's messages, whose English names its parser's internals
// ("Unsupported option name", "Not enough positional arguments"): one line
// saying what, where (the command line as typed) and what to do.
import type { DefinedOption } from './base.js';
import type { Operands } from './options.js';

/** One command as the command line knows it. */
export interface KnownCommand {
  /** Its words after fleet-git: ['model', 'list']. */
  words: string[];
  options: DefinedOption[];
  operands: Operands | null;
}

/** The nearest of `names` to `typed`, or null (command-line.ts's nearest). */
type Nearest = (typed: string, names: string[]) => string | null;

/**
 * Why `argv` (with `help X` already made `X --help`) matches none of `commands`:
 * `what: typed (what to do)`, `typed` being the words as the user gave them.
 */
export function misuse(argv: string[], typed: string[], commands: KnownCommand[], nearest: Nearest): string {
  const line = (what: string, hint: string) => `${what}: ${typed.join(' ')} (${hint})`;
  const cmd = commands.filter((c) => c.words.every((w, i) => argv[i] === w)).sort((a, b) => b.words.length - a.words.length)[0];
  if (!cmd) {
    const first = argv[0] ?? '';
    const under = commands.filter((c) => c.words[0] === first && c.words.length > 1);
    if (under.length)
      return line(
        `"${first}" is not a command on its own`,
        `did you mean ${under.map((c) => `fleet-git ${c.words.join(' ')}`).join(' or ')}?`,
      );
    if (first.startsWith('-')) return line(`unknown option ${first.split('=')[0]}`, 'fleet-git help lists the commands');
    const near = /^[a-z]/.test(first) ? nearest(first, [...new Set(commands.map((c) => c.words[0]!)), 'help']) : null;
    return line(
      `no command "${first}"`,
      near ? `did you mean fleet-git ${typed[0] === 'help' ? 'help ' : ''}${near}?` : 'fleet-git help lists the commands',
    );
  }
  const name = cmd.words.join(' ');
  const listed = `fleet-git help ${name} lists its options`;
  const takes = `fleet-git help ${name} says what it takes`;
  const names = cmd.options.map((o) => o.name);
  const rest = argv.slice(cmd.words.length);
  let count = 0;
  let extra: string | undefined;
  const operand = (word: string) => {
    count++;
    if (count > (cmd.operands?.max ?? 0)) extra ??= word;
  };
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === '--') {
      rest.slice(i + 1).forEach(operand);
      break;
    }
    if (word === '-h' || word === '--help') continue;
    if (!/^-[^\d]/.test(word)) {
      operand(word);
      continue;
    }
    const eq = word.indexOf('=');
    const optName = eq < 0 ? word : word.slice(0, eq);
    const option = cmd.options.find((o) => o.name === optName);
    // Short options together (`-qy`): each one known and taking no value.
    if (!option && /^-[A-Za-z]{2,}$/.test(word) && [...word.slice(1)].every((c) => cmd.options.some((o) => o.name === `-${c}` && !o.value)))
      continue;
    if (!option) {
      const near = nearest(optName, names);
      return line(`${name} has no option ${optName}`, near ? `did you mean ${near}?` : listed);
    }
    if (option.value && eq < 0) {
      if (i + 1 >= rest.length) return line(`${optName} needs a value`, option.choices ? `it takes ${option.choices.join(', ')}` : listed);
      i++;
    } else if (!option.value && eq >= 0) return line(`${optName} takes no value`, listed);
  }
  const ops = cmd.operands;
  if (ops && count < ops.min) return line(`${name} needs ${ops.max === 1 ? 'a' : 'at least one'} ${ops.name}`, takes);
  if (extra !== undefined) {
    const most = !ops ? 'nothing but options' : ops.max === 1 ? `at most one ${ops.name}` : `at most ${ops.max} ${ops.name}s`;
    return line(`${name} takes ${most}, not "${extra}"`, takes);
  }
  return line('this command line cannot be read', listed);
}
