/**
 * The one argument-parsing library of every Keelson process: `commander` (the `keelson` CLI, the MCO operator and
 * controller build their command trees with it directly; the CVO, daemon and server bins describe their flags as a
 * table and read typed values with {@link parseFlags}). Whatever the entry, a bad command line is a
 * {@link UsageError} (exit 2) and `--help` prints the binary's own usage text.
 */
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from './flags.js';

/** A flag taking a value (`--name v` or `--name=v`). */
export interface StringFlag {
  readonly type: 'string';
  readonly default?: string;
  readonly multiple?: false;
  /** One line of help (the binary's usage text is what `--help` prints). */
  readonly help?: string;
}

/** A repeatable flag taking a value; every occurrence is kept, in order. */
export interface StringsFlag {
  readonly type: 'string';
  readonly multiple: true;
  readonly help?: string;
}

/** A flag without a value. */
export interface BoolFlag {
  readonly type: 'boolean';
  readonly default?: boolean;
  readonly help?: string;
}

/** One flag of a {@link parseFlags} table. */
export type FlagSpec = StringFlag | StringsFlag | BoolFlag;

/** The value a flag parses to. */
export type FlagValue<S extends FlagSpec> = S extends BoolFlag
  ? S extends { default: boolean }
    ? boolean
    : boolean | undefined
  : S extends StringsFlag
    ? string[]
    : S extends { default: string }
      ? string
      : string | undefined;

/** The values of a flag table, keyed by flag name (without `--`). */
export type FlagValues<T extends Readonly<Record<string, FlagSpec>>> = { -readonly [K in keyof T]: FlagValue<T[K]> };

/** Result of {@link parseFlags}: `help` when `--help`/`-h` was given (the usage text was written to stdout). */
export type ParsedFlags<T extends Readonly<Record<string, FlagSpec>>> =
  { readonly help: false; readonly values: FlagValues<T> } | { readonly help: true };

function optionOf(name: string, spec: FlagSpec): Option {
  if (spec.type === 'boolean') {
    const o = new Option(`--${name}`, spec.help ?? '');
    return spec.default !== undefined ? o.default(spec.default) : o;
  }
  const o = new Option(`--${name} <value>`, spec.help ?? '');
  if (spec.multiple === true) return o.default([]).argParser((v: string, prev: string[]) => [...prev, v]);
  return spec.default !== undefined ? o.default(spec.default) : o;
}

/** The command's text of a commander error, without commander's `error: ` prefix. */
function messageOf(e: CommanderError): string {
  return e.message.replace(/^error: /, '');
}

/**
 * Parses `args` (the words after the subcommand) against `flags` with commander: unknown flags, a missing value and
 * stray positional arguments are {@link UsageError}s whose message ends with `usage` when given; `--help` writes
 * `usage` to stdout.
 */
export function parseFlags<T extends Readonly<Record<string, FlagSpec>>>(
  command: string,
  flags: T,
  args: readonly string[],
  usage = '',
): ParsedFlags<T> {
  const cmd = new Command(command)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: () => undefined,
    })
    .configureHelp({ formatHelp: () => (usage.endsWith('\n') ? usage : `${usage}\n`) });
  for (const [name, spec] of Object.entries(flags)) cmd.addOption(optionOf(name, spec));
  try {
    cmd.parse([...args], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    if (e.exitCode === 0) return { help: true };
    const reason = messageOf(e);
    throw new UsageError(usage === '' ? reason : `${reason}\n${usage}`, { reason, cause: e });
  }
  const values: Record<string, unknown> = {};
  for (const o of cmd.options) values[o.name()] = cmd.getOptionValue(o.attributeName());
  return { help: false, values: values as FlagValues<T> };
}

/**
 * Runs a commander program as a Keelson binary does: `--help` exits 0, a commander usage error (unknown flag,
 * missing argument; commander printed it) and a {@link UsageError} from an action exit 2. Returns the exit code.
 */
export async function runProgram(program: Command, argv: readonly string[]): Promise<number> {
  // subcommands copy their parent's settings when created: set it on each
  const override = (c: Command): void => {
    c.exitOverride();
    c.commands.forEach(override);
  };
  override(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
}
