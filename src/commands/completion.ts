// `fleet-git completion bash|zsh|fish`: a completion script for the shell,
// made from the commands' own definitions (their names, options and whether
// an option takes a value), so it cannot drift from what the commands accept.
import { operand } from './options.js';
import { definedOptions, FleetCommand, EXIT, InputError, type ExitCodes } from './base.js';

/** One command as completion sees it: its words after fleet-git, its description, its options. */
export interface Spec {
  words: string[];
  description: string;
  options: { name: string; value: boolean; description: string; choices?: readonly string[] }[];
  /** The values its operands take, when they are a few words (completion's shells); folders otherwise. */
  operands?: readonly string[];
}

/** The shells `completion` writes a script for: what it takes and what its completion offers. */
const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Options whose value is a folder (completed as one); other values are not completed. */
const FOLDER_VALUES = new Set(['--under', '--cwd']);

/** What `help`, the one word clipanion's commands do not define, is described as. */
const HELP = 'show the help of a command';

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const tops = (specs: Spec[]) => [...new Set(specs.map((s) => s.words[0]))];
/** Every option of the commands whose first word is `top` (model list's under model). */
const optionsOf = (specs: Spec[], top: string) => [
  ...new Map(
    specs
      .filter((s) => s.words[0] === top)
      .flatMap((s) => s.options)
      .map((o) => [o.name, o]),
  ).values(),
];
const subsOf = (specs: Spec[], top: string) => specs.filter((s) => s.words[0] === top && s.words.length > 1).map((s) => s.words[1]);
/** The operand values of the command whose first word is `top`, or undefined for folders. */
const operandsOf = (specs: Spec[], top: string) => specs.find((s) => s.words[0] === top && s.operands)?.operands;

export function bashScript(specs: Spec[]): string {
  const cases = tops(specs).map((t) => {
    const opts = optionsOf(specs, t);
    const subs = subsOf(specs, t);
    const values = opts.filter((o) => o.value).map((o) => o.name);
    const args = operandsOf(specs, t) ?? [];
    return `    ${t}) opts=${sq(opts.map((o) => o.name).join(' '))}; subs=${sq(subs.join(' '))}; values=${sq(values.join(' '))}; args=${sq(args.join(' '))} ;;`;
  });
  // The values of the options that take one of a few.
  const choices = [
    ...new Map(
      specs
        .flatMap((s) => s.options)
        .filter((o) => o.choices)
        .map((o) => [o.name, o.choices!]),
    ).entries(),
  ].map(([name, words]) => `${name}) COMPREPLY=($(compgen -W ${sq(words.join(' '))} -- "$cur")) ;;`);
  return `# fleet-git completion for bash: eval "$(fleet-git completion bash)" in ~/.bashrc
_fleet_git() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} opts='' subs='' values='' args=''
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W ${sq([...tops(specs), 'help'].join(' '))} -- "$cur"))
    return
  fi
  case \${COMP_WORDS[1]} in
${cases.join('\n')}
    help) COMPREPLY=($(compgen -W ${sq(tops(specs).join(' '))} -- "$cur")); return ;;
  esac
  if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ] && [[ $cur != -* ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return
  fi
  case " $values " in
    *" $prev "*)
      case $prev in
        ${[...FOLDER_VALUES].join('|')}) COMPREPLY=($(compgen -d -- "$cur")) ;;
        ${choices.join('\n        ')}
      esac
      return ;;
  esac
  case $cur in
    -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
    *) if [ -n "$args" ]; then COMPREPLY=($(compgen -W "$args" -- "$cur")); else COMPREPLY=($(compgen -d -- "$cur")); fi ;;
  esac
}
complete -o filenames -o bashdefault -F _fleet_git fleet-git
`;
}

/** A zsh _arguments spec: --name[description], with :value: for an option that takes one. */
function zshOption(o: Spec['options'][number]): string {
  const d = o.description.replace(/[[\]:\\]/g, (c) => `\\${c}`);
  const value = FOLDER_VALUES.has(o.name) ? '_files -/' : o.choices ? `(${o.choices.join(' ')})` : ' ';
  return sq(`${o.name}[${d}]${o.value ? `:${o.name.slice(2)}:${value}` : ''}`);
}

export function zshScript(specs: Spec[]): string {
  const cmds = tops(specs).map((t) => sq(`${t}:${(specs.find((s) => s.words[0] === t)?.description ?? '').replace(/:/g, '\\:')}`));
  const cases = tops(specs).map((t) => {
    const subs = subsOf(specs, t);
    const words = operandsOf(specs, t);
    const operand = subs.length
      ? sq(`1:subcommand:(${subs.join(' ')})`)
      : words
        ? sq(`1:${t} takes:(${words.join(' ')})`)
        : sq('*:folder:_files -/');
    const args = [...optionsOf(specs, t).map(zshOption), operand];
    return `    ${t}) _arguments -s ${args.join(' ')} ;;`;
  });
  return `#compdef fleet-git
# fleet-git completion for zsh: fleet-git completion zsh > "\${fpath[1]}/_fleet-git", or eval "$(fleet-git completion zsh)" after compinit
_fleet_git() {
  local -a commands
  commands=(${[...cmds, sq(`help:${HELP}`)].join(' ')})
  if (( CURRENT == 2 )); then
    _describe -t commands 'fleet-git command' commands
    return
  fi
  local cmd=\${words[2]}
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases.join('\n')}
    help) _describe -t commands 'fleet-git command' commands ;;
  esac
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _fleet_git "$@"
else
  compdef _fleet_git fleet-git
fi
`;
}

export function fishScript(specs: Spec[]): string {
  const lines = [
    '# fleet-git completion for fish: fleet-git completion fish > ~/.config/fish/completions/fleet-git.fish',
    'complete -c fleet-git -f',
  ];
  const all = tops(specs);
  for (const t of all)
    lines.push(
      `complete -c fleet-git -n ${sq(`not __fish_seen_subcommand_from ${all.join(' ')} help`)} -a ${sq(t)} -d ${sq(specs.find((s) => s.words[0] === t)?.description ?? '')}`,
    );
  lines.push(`complete -c fleet-git -n ${sq(`not __fish_seen_subcommand_from ${all.join(' ')} help`)} -a help -d ${sq(HELP)}`);
  lines.push(`complete -c fleet-git -n ${sq('__fish_seen_subcommand_from help')} -a ${sq(all.join(' '))}`);
  for (const t of all) {
    const when = sq(`__fish_seen_subcommand_from ${t}`);
    const subs = subsOf(specs, t);
    const words = operandsOf(specs, t);
    if (subs.length) lines.push(`complete -c fleet-git -n ${when} -a ${sq(subs.join(' '))}`);
    else if (words) lines.push(`complete -c fleet-git -n ${when} -a ${sq(words.join(' '))}`);
    else lines.push(`complete -c fleet-git -n ${when} -a ${sq('(__fish_complete_directories)')}`);
    for (const o of optionsOf(specs, t)) {
      const value = !o.value
        ? ''
        : FOLDER_VALUES.has(o.name)
          ? ` -r -a ${sq('(__fish_complete_directories)')}`
          : o.choices
            ? ` -x -a ${sq(o.choices.join(' '))}`
            : ' -r';
      const name = o.name.startsWith('--') ? `-l ${o.name.slice(2)}` : `-s ${o.name.slice(1)}`;
      lines.push(`complete -c fleet-git -n ${when} ${name}${value} -d ${sq(o.description)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export class CompletionCommand extends FleetCommand {
  static paths = [['completion']];

  static refreshesKit = false; // run by a shell as it starts: nothing to do with hooks
  static exits: ExitCodes = {
    0: 'the script printed',
    2: 'a shell other than bash, zsh or fish',
  };
  static usage = FleetCommand.Usage({
    description: 'print a completion script for bash, zsh or fish',
    details: `
      Completes the commands, their options, the values of those that take one of a few (--color: auto, always, never; completion: bash, zsh, fish) and folders. Load it from the shell's start-up file: bash: eval "$(fleet-git completion bash)" in ~/.bashrc; zsh: eval "$(fleet-git completion zsh)" after compinit in ~/.zshrc (or save it as _fleet-git in a folder of $fpath); fish: fleet-git completion fish > ~/.config/fish/completions/fleet-git.fish.
    `,
    examples: [
      ['For bash', '$0 completion bash'],
      ['For fish', '$0 completion fish > ~/.config/fish/completions/fleet-git.fish'],
    ],
  });

  shell = operand('shell', true);

  async run(): Promise<number> {
    const make = { bash: bashScript, zsh: zshScript, fish: fishScript }[this.shell];
    if (!make || !(SHELLS as readonly string[]).includes(this.shell))
      throw new InputError(`completion takes bash, zsh or fish, not "${this.shell}"`);
    const specs: Spec[] = this.cli
      .definitions()
      .map((d) => ({
        words: d.path.split(' ').slice(1),
        description: (d.description ?? '').trim(),
        options: definedOptions(d),
        ...(d.path === 'fleet-git completion' ? { operands: SHELLS } : {}),
      }))
      .filter((s) => s.words.length > 0 && !s.words[0].startsWith('-'));
    this.context.stdout.write(make(specs));
    return EXIT.ok;
  }
}
