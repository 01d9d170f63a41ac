/**
 * The output conventions every keelson command follows (those of `oc` / `kubectl`), in one place:
 *
 * - Read commands take `-o, --output <format>`: `table` (the default human view), `wide` (the table with more
 *   columns, or the table itself when there is nothing more to show), `json` and `yaml`; a command may add formats of
 *   its own (`dot`, `mermaid`, `name`...). `--json` and `--format <f>` exist only as aliases where they did before.
 * - Exit codes: {@link EXIT_OK} 0, {@link EXIT_FAILURE} 1 when the operation failed, {@link EXIT_USAGE} 2 for usage
 *   errors (bad flags, bad flag values, missing arguments).
 * - Errors go to stderr as `error: <message>` ({@link reportError}); warnings as `warning: <message>` ({@link warn}).
 *
 * Usage in a command:
 * ```ts
 * addOutputOption(cmd, { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['json'] }).action(async (o: OutputFlags) => {
 *   const format = outputFormat(o, cmd);
 *   await printResult(format, { table: () => formatTable(rows), data: () => value });
 * });
 * ```
 */
import { Option, type Command } from 'commander';
import { CliError } from './errors.js';

export { CliError } from './errors.js';

/** Exit code of a successful run. */
export const EXIT_OK = 0;
/** Exit code when the operation failed (runtime error). */
export const EXIT_FAILURE = 1;
/** Exit code of a usage error (unknown flag, bad flag value, missing argument). */
export const EXIT_USAGE = 2;

/** The formats every read command accepts. */
export const STANDARD_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
/** One of {@link STANDARD_FORMATS}. */
export type StandardFormat = (typeof STANDARD_FORMATS)[number];

/** Which output flags a command has and what they accept. */
export interface OutputSpec {
  /** Accepted `-o` values; the first one is the default unless {@link OutputSpec.default} says otherwise. */
  formats: readonly string[];
  default?: string;
  /** Legacy aliases to keep: `json` adds `--json` (= `-o json`), `format` adds `--format <f>` (= `-o <f>`). */
  aliases?: readonly ('json' | 'format')[];
}

/** The parsed output flags of a command (commander's option object includes them). */
export interface OutputFlags {
  output?: string;
  format?: string;
  json?: boolean;
}

const specs = new WeakMap<Command, Required<OutputSpec>>();

/** A usage error (exit code 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT_USAGE);
}

/** Adds `-o, --output <format>` (and the requested aliases) to a command. */
export function addOutputOption(cmd: Command, spec: OutputSpec): Command {
  const full: Required<OutputSpec> = {
    formats: spec.formats,
    default: spec.default ?? spec.formats[0] ?? 'table',
    aliases: spec.aliases ?? [],
  };
  specs.set(cmd, full);
  cmd.addOption(
    new Option('-o, --output <format>', `output format: ${full.formats.join(', ')} (default ${full.default})`),
  );
  if (full.aliases.includes('json')) cmd.addOption(new Option('--json', 'same as -o json'));
  if (full.aliases.includes('format')) cmd.addOption(new Option('--format <format>', 'same as -o <format>'));
  return cmd;
}

/**
 * The output format chosen with `-o` or an alias, checked against the command's formats (usage error otherwise,
 * also when two flags ask for different formats).
 */
export function outputFormat(flags: OutputFlags, cmd: Command): string {
  const spec = specs.get(cmd);
  if (spec === undefined) throw new Error(`${cmd.name()}: addOutputOption was not called for this command`);
  const picked: [flag: string, value: string][] = [];
  if (flags.output !== undefined) picked.push([`-o ${flags.output}`, flags.output]);
  if (flags.format !== undefined) picked.push([`--format ${flags.format}`, flags.format]);
  if (flags.json === true) picked.push(['--json', 'json']);
  if (new Set(picked.map(([, v]) => v)).size > 1)
    throw usageError(`conflicting output formats: ${picked.map(([f]) => f).join(', ')}`);
  const format = picked[0]?.[1] ?? spec.default;
  if (!spec.formats.includes(format)) {
    throw usageError(
      `unknown output format ${JSON.stringify(format)} for "${cmd.name()}"; use one of: ${spec.formats.join(', ')}`,
    );
  }
  return format;
}

/** Columns padded to their widest cell (the last column is not padded); no trailing spaces. */
export function formatTable(
  rows: readonly (readonly string[])[],
  opts: { indent?: string; gap?: string } = {},
): string {
  const indent = opts.indent ?? '';
  const gap = opts.gap ?? '  ';
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((row) =>
      `${indent}${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join(gap)}`.trimEnd(),
    )
    .join('\n');
}

/** Writes to stdout and resolves once the text is handed to the OS (so that exit codes follow complete output). */
export function writeOut(text: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    process.stdout.write(text, (err) => {
      if (err) reject(err);
      else resolve();
    });
  });
}

/** A warning on stderr (`warning: ...`); the run goes on. */
export function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

/** JSON (2-space indent) or YAML text of a value, newline-terminated. The YAML library is loaded only when asked. */
export async function renderStructured(value: unknown, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  const { stringify } = await import('yaml');
  return stringify(value, { lineWidth: 0 });
}

/** The views a read command offers: the human table (and optionally a wider one) and the data behind them. */
export interface ResultViews {
  table: () => string;
  /** Default: the table. */
  wide?: () => string;
  /** What `-o json` / `-o yaml` print. */
  data: () => unknown;
}

/** Prints a result in the chosen standard format. Other formats are the command's own business. */
export async function printResult(format: string, views: ResultViews): Promise<void> {
  let text: string;
  switch (format) {
    case 'json':
    case 'yaml':
      text = await renderStructured(views.data(), format);
      break;
    case 'wide':
      text = (views.wide ?? views.table)();
      break;
    case 'table':
      text = views.table();
      break;
    default:
      throw usageError(`unknown output format ${JSON.stringify(format)}`);
  }
  await writeOut(text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

/** Prints an error on stderr as the CLI does and returns the exit code it stands for. */
export function reportError(err: unknown): number {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  return err instanceof CliError ? err.exitCode : EXIT_FAILURE;
}
