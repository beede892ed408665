// Makes the command reference from the commands' own definitions (src/commands/command-line.ts
// commandReference: clipanion's definitions, each command's usage text and its exit codes), so
// that help, docs/commands.md and the man page have one source:
//   node --import tsx scripts/docs.ts           (npm run docs) writes docs/commands.md and man/fleet-git.1
//   node --import tsx scripts/docs.ts --check   exits 1, naming the file, when either is not current
// docs/commands.md is generated down to its END line; what follows it is kept as written.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { commandReference, type CommandDoc } from '../src/commands/command-line.js';
import { EXITS, type ExitCodes } from '../src/commands/base.js';
import { paragraphs } from '../src/commands/help.js';
import pkg from '../package.json' with { type: 'json' };

const ROOT = join(import.meta.dirname, '..');
export const COMMANDS_MD = join(ROOT, 'docs', 'commands.md');
export const MAN_PAGE = join(ROOT, 'man', 'fleet-git.1');
export const END = '<!-- end of the part npm run docs writes; what follows is kept as written -->';

/** An example's command line as typed (`$0` is the binary). */
const typed = (cmd: string) => cmd.replace(/\$0/g, 'fleet-git');
const anchor = (path: string) => path.replace(/ /g, '-');
/** Markdown text outside code: `<` would open HTML, `|` would cut a table cell. */
const md = (t: string) => t.replace(/</g, '&lt;').replace(/\|/g, '\\|');

function exitsMd(exits: ExitCodes): string[] {
  return ['| code | when |', '|---|---|', ...Object.entries(exits).map(([c, what]) => `| \`${c}\` | ${md(what)} |`)];
}

/** A command's options but --color, which every command takes (said once, at the top). */
const own = (d: CommandDoc) => d.definition.options.filter((o) => !o.definition.startsWith('--color'));

export function commandsMarkdown(docs: CommandDoc[]): string {
  const colour = docs[0]!.definition.options.find((o) => o.definition.startsWith('--color'))!;
  const out = [
    '# Commands',
    '',
    `<!-- Written by npm run docs (scripts/docs.ts) from the commands' own definitions, as \`fleet-git help COMMAND\` prints them: change the commands, not this part. -->`,
    '',
    `fleet-git ${pkg.version}. Each command's help (\`fleet-git help COMMAND\`, or \`COMMAND --help\`) says the same; \`man fleet-git\` too, once installed.`,
    '',
    ...docs.map((d) => `- [\`${d.path}\`](#${anchor(d.path)}): ${md(d.definition.description?.trim() ?? '')}`),
    '',
    `Every command takes \`${colour.definition}\`: ${md(colour.description ?? '')}.`,
    '',
    'Every command exits with one of these codes (each command below says what they mean for it):',
    '',
    ...exitsMd(EXITS),
  ];
  for (const d of docs) {
    out.push('', `## ${d.path}`, '', `${md(d.definition.description?.trim() ?? '')}.`, '', '```', d.synopsis, '```', '');
    for (const p of paragraphs(d.usage.details)) out.push(md(p), '');
    out.push('Options (and `--color WHEN`, above):', '', '| option | what it does |', '|---|---|');
    for (const o of own(d)) out.push(`| \`${o.definition}\` | ${md(o.description ?? '')} |`);
    if (d.usage.examples?.length) {
      out.push('', 'Examples:', '');
      for (const [what, cmd] of d.usage.examples) out.push(`- ${md(what)}: \`${typed(cmd)}\``);
    }
    out.push('', 'Exit codes:', '', ...exitsMd(d.exits));
  }
  return `${out.join('\n')}\n`;
}

/** roff text: a backslash is \e, a hyphen in an option \-, and a line starting with . or ' is escaped. */
function roff(t: string): string {
  return t
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/`([^`]+)`/g, '\\fB$1\\fR')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

export function manPage(docs: CommandDoc[]): string {
  const out = [
    `.\\" Written by npm run docs (scripts/docs.ts) from the commands' own definitions: change the commands, not this file.`,
    `.TH FLEET\\-GIT 1 "" "fleet-git ${pkg.version}" "User Commands"`,
    '.nh',
    '.SH NAME',
    `fleet\\-git \\- ${roff(pkg.description)}`,
    '.SH SYNOPSIS',
    '.B fleet\\-git',
    '.I command',
    '[\\fIoptions\\fR] [\\fIarguments\\fR]',
    '.SH DESCRIPTION',
    roff(
      "Copilot reads hooks from <repo>/.github/hooks/*.json. fleet-git enable writes its hook file there, keeps it out of commits with the repository's info/exclude, and installs a git post-checkout hook so that every new worktree gets it too; each Copilot session in the repository is then a card in the fleet observer.",
    ),
    '.SH COMMANDS',
  ];
  for (const d of docs) {
    out.push('.SS ' + roff(d.path), '.B ' + roff(d.synopsis), '.PP', roff(`${d.definition.description?.trim() ?? ''}.`));
    for (const p of paragraphs(d.usage.details)) out.push('.PP', roff(p));
    out.push('.PP', 'Options:');
    for (const o of d.definition.options) out.push('.TP', `.B ${roff(o.definition)}`, roff(o.description ?? ''));
    if (d.usage.examples?.length) {
      out.push('.PP', 'Examples:');
      for (const [what, cmd] of d.usage.examples) out.push('.TP', roff(`${what}:`), `.B ${roff(typed(cmd))}`);
    }
    out.push('.PP', 'Exit codes:');
    for (const [c, what] of Object.entries(d.exits)) out.push('.TP', `.B ${c}`, roff(what));
  }
  out.push('.SH EXIT STATUS');
  for (const [c, what] of Object.entries(EXITS)) out.push('.TP', `.B ${c}`, roff(what));
  out.push(
    '.SH SEE ALSO',
    roff('git(1), githooks(5); docs/how-it-works.md, docs/commands.md and the README in the package or its repository.'),
  );
  return `${out.join('\n')}\n`;
}

/** docs/commands.md as it should be: the generated part, then what follows END in `current` as it is. */
export function commandsFile(docs: CommandDoc[], current: string): string {
  const at = current.indexOf(END);
  const kept = at < 0 ? '' : current.slice(at + END.length);
  return `${commandsMarkdown(docs)}\n${END}${kept || '\n'}`;
}

async function main() {
  const docs = await commandReference();
  const check = process.argv.includes('--check');
  const current = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  const want = [
    [COMMANDS_MD, commandsFile(docs, current(COMMANDS_MD))],
    [MAN_PAGE, manPage(docs)],
  ] as const;
  let stale = 0;
  for (const [file, text] of want) {
    if (current(file) === text) continue;
    if (check) {
      console.error(`docs: ${file.slice(ROOT.length + 1)} is not current: run npm run docs`);
      stale++;
    } else {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
      console.log(`docs: wrote ${file.slice(ROOT.length + 1)}`);
    }
  }
  process.exit(stale ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
