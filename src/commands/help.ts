// fleet-git's help, laid out here from clipanion's definitions of the commands
// (their usage lines, options and descriptions) and each command's own usage
// text: every line fits the terminal's width, coloured or not, words are never
// cut, and an option's description wraps under its own column. clipanion's own
// layout assumes 80 columns and measures its colour codes as text.
import type { Definition, Usage } from 'clipanion';
import { painter } from '../colour.js';

/** How help is laid out: its width in columns (every line is shorter by one) and whether it is coloured. */
export interface Layout {
  width: number;
  colour: boolean;
}

/** The width help is laid out for: the terminal's, when `stream` is one, else 80; at most 100 (longer lines read badly). */
export function helpWidth(stream: unknown): number {
  const s = stream as { isTTY?: boolean; columns?: number };
  return s.isTTY === true && typeof s.columns === 'number' && s.columns > 0 ? Math.min(s.columns, 100) : 80;
}

/** `text`'s words in lines of at most `room` columns after `first` (the first line) and `indent` (the rest); a longer word has a line of its own. */
export function wrap(text: string, room: number, indent = '', first = indent): string[] {
  const lines: string[] = [];
  let line = first;
  let lead = first.length;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length > lead && line.length + 1 + word.length > room) {
      lines.push(line);
      line = indent;
      lead = indent.length;
    }
    line += line.length > lead ? ` ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** A usage text's paragraphs, each on one line (the source indents them): for help and scripts/docs.ts. */
export function paragraphs(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\n\s*\n/)
    .map((p) =>
      p
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' '),
    )
    .filter(Boolean);
}

class Writer {
  readonly lines: string[] = [];
  private readonly paint: ReturnType<typeof painter>;
  /** The columns a line may take: one fewer than the width, so that no terminal wraps it. */
  private readonly room: number;

  constructor(private readonly layout: Layout) {
    this.paint = painter(layout.colour);
    this.room = layout.width - 1;
  }

  /** A section's title: in colour, bold, with a rule to the line's end. */
  header(title: string): void {
    if (this.lines.length) this.lines.push('');
    const rule = this.room - title.length - 5;
    this.lines.push(this.layout.colour ? this.paint(['bold'], `━━━ ${title}${rule > 0 ? ` ${'━'.repeat(rule)}` : ''}`) : title);
    this.lines.push('');
  }

  /** Text wrapped to the width, `code` in it marked in colour. */
  text(text: string, indent = '', first = indent): void {
    for (const l of wrap(text, this.room, indent, first)) this.lines.push(this.code(l));
  }

  /** A command line (`$ fleet-git ...`, its `$ ` in bold; without it for `prompt` false), its continuation lines indented. */
  command(line: string, indent = '', prompt = true): void {
    // An option with its value (`[--under ROOT]`) is one word: never cut between them.
    const glued = line.replace(/\[[^\]]*\]|<[^>]*>/g, (m) => m.replace(/ /g, '\0'));
    const wrapped = wrap(glued, this.room, `${indent}    `, `${indent}${prompt ? '$ ' : ''}`).map((l) => l.replace(/\0/g, ' '));
    if (prompt) wrapped[0] = `${indent}${this.paint(['bold'], '$ ')}${wrapped[0]!.slice(indent.length + 2)}`;
    this.lines.push(...wrapped);
  }

  /** Rows of a name and what it means: the names padded to one column, each meaning wrapped under its own. */
  rows(rows: Array<[string, string]>): void {
    const width = Math.max(...rows.map(([n]) => n.length));
    // On a narrow terminal the meanings go under their names, indented, rather than into a sliver of a column.
    const under = width + 6 > this.room / 2;
    for (const [name, what] of rows) {
      const pad = under ? '      ' : ' '.repeat(width + 6);
      if (under) {
        this.lines.push(`  ${this.paint(['bold'], name)}`);
        this.text(what, pad);
      } else {
        const wrapped = wrap(what, this.room, pad, pad);
        this.lines.push(`  ${this.paint(['bold'], name.padEnd(width))}    ${this.code(wrapped[0]!.slice(pad.length))}`);
        for (const l of wrapped.slice(1)) this.lines.push(this.code(l));
      }
    }
  }

  blank(): void {
    this.lines.push('');
  }

  /** Spans in backquotes marked (cyan), the quotes kept: a span may run over a line's end. */
  private open = false;
  private code(line: string): string {
    if (!this.layout.colour || (!line.includes('`') && !this.open)) return line;
    const parts = line.split('`');
    let out = '';
    parts.forEach((part, i) => {
      if (i > 0) this.open = !this.open;
      const piece = `${i > 0 && this.open ? '`' : ''}${part}${i < parts.length - 1 && this.open ? '`' : ''}`;
      out += this.open ? this.paint(['cyan'], piece) : piece;
    });
    return out;
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** One command for its help: clipanion's definition (usage line and options, values named) and its own usage text. */
export interface CommandHelp {
  definition: Definition;
  usage: Usage;
  /** Its exit codes: `Exit codes` closes its help. */
  exits?: Readonly<Record<number, string>>;
}

/** `fleet-git help COMMAND`: what it does, its usage line, options, details, examples and exit codes. */
export function commandHelp(c: CommandHelp, layout: Layout): string {
  const w = new Writer(layout);
  const description = (c.usage.description ?? '').trim();
  if (description) w.text(description.charAt(0).toUpperCase() + description.slice(1));
  w.header('Usage');
  w.command(c.definition.usage);
  if (c.definition.options.length) {
    w.header('Options');
    w.rows(c.definition.options.map((o) => [o.definition, o.description ?? '']));
  }
  const details = paragraphs(c.usage.details);
  if (details.length) {
    w.header('Details');
    details.forEach((p, i) => {
      if (i) w.blank();
      w.text(p);
    });
  }
  if (c.usage.examples?.length) {
    w.header('Examples');
    c.usage.examples.forEach(([label, line], i) => {
      if (i) w.blank();
      w.text(label);
      w.command(line.replace(/\$0/g, 'fleet-git'), '  ');
    });
  }
  if (c.exits) {
    w.header('Exit codes');
    w.rows(Object.entries(c.exits));
  }
  return w.toString();
}

/** `fleet-git help`: each command's usage line (with its options) and what it does. */
export function commandList(version: string, commands: Array<{ synopsis: string; description: string }>, layout: Layout): string {
  const w = new Writer(layout);
  w.header(`fleet-git ${version}`);
  w.command('fleet-git <command>', '  ');
  w.header('Commands');
  commands.forEach(({ synopsis, description }, i) => {
    if (i) w.blank();
    w.command(synopsis.replace(/^\$ /, ''), '  ', false);
    w.text(description.trim(), '    ');
  });
  w.blank();
  w.text('fleet-git help COMMAND (or fleet-git COMMAND --help) prints its options, details, examples and exit codes.');
  return w.toString();
}
