import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  IgnitionError,
  merge,
  parseConfig,
  SPEC_VERSIONS,
  translate,
  validate,
  type IgnitionConfig,
  type IgnitionConfigV3,
  type JsonPath,
  type ReportEntry,
  type SpecVersion,
} from '@keelson/ignition';
import { addOutputOption, CliError, outputFormat, printResult, usageError, type OutputFlags } from '../output.js';

function jsonPath(path: JsonPath): string {
  return (
    '$' +
    path
      .map((p) =>
        typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`,
      )
      .join('')
  );
}

function readInput(file: string): Buffer {
  try {
    return file === '-' ? readFileSync(0) : readFileSync(file);
  } catch (e) {
    throw usageError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function formatEntry(file: string, e: ReportEntry): string {
  const where = e.line !== undefined ? `${file}:${e.line}:${e.column ?? 0}` : file;
  return `${where}: ${e.kind} at ${jsonPath(e.path)}: ${e.message}`;
}

/** Parses a file into a valid config, or throws a CliError naming the file and JSON path. */
function load(
  file: string,
  experimental: boolean,
): { version: SpecVersion; config: IgnitionConfig; report: ReportEntry[] } {
  try {
    return parseConfig(readInput(file), { experimental });
  } catch (e) {
    if (e instanceof IgnitionError) {
      const lines = e.report.filter((r) => r.kind === 'error').map((r) => formatEntry(file, r));
      const head = `${file}: ${e.path.length > 0 ? `${jsonPath(e.path)}: ` : ''}${e.message}`;
      throw new CliError([head, ...lines].join('\n'));
    }
    throw e;
  }
}

function parseVersion(v: string): SpecVersion {
  if (!(SPEC_VERSIONS as readonly string[]).includes(v)) {
    throw usageError(`--to ${v}: unknown spec version; use one of ${SPEC_VERSIONS.join(', ')}`);
  }
  return v as SpecVersion;
}

/** Registers `keelson ignition validate|merge|translate`. */
export function registerIgnitionCommands(program: Command): void {
  const ign = program
    .command('ignition')
    .description('Ignition configs: validate, merge, translate between spec versions');

  const validateCmd = ign
    .command('validate')
    .description(
      'Validate Ignition configs (2.2.0, 3.0.0-3.6.0) against the schema and upstream rules; exit 1 if any is invalid',
    )
    .argument('<files...>', 'config files (- for stdin)')
    .option('--experimental', 'accept spec 3.7.0-experimental', false);
  // -o json|yaml: the reports as data; table: one line per finding (errors on stderr) and a verdict per file
  addOutputOption(validateCmd, { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['json'] }).action(
    async (files: string[], opts: OutputFlags & { experimental: boolean }) => {
      const format = outputFormat(opts, validateCmd);
      let failed = 0;
      const out: { file: string; version: string | null; valid: boolean; entries: ReportEntry[] }[] = [];
      for (const file of files) {
        const buf = readInput(file);
        let result: { version: string | null; valid: boolean; entries: ReportEntry[] };
        try {
          const parsed = parseConfig(buf, { experimental: opts.experimental });
          result = { version: parsed.version, valid: true, entries: parsed.report };
        } catch (e) {
          if (!(e instanceof IgnitionError)) throw e;
          const entries: ReportEntry[] =
            e.report.length > 0 && e.code !== 'IGNITION_INVALID_JSON'
              ? e.report
              : [{ kind: 'error', message: e.message, path: e.path, name: e.upstreamName }];
          result = { version: null, valid: false, entries };
          if (e.report.length === 0 && e.code !== 'IGNITION_INVALID_JSON') {
            // a version problem stops parsing early: when the document is still readable, report every rule too
            try {
              const v = validate(JSON.parse(buf.toString('utf8')) as unknown, { experimental: opts.experimental });
              if (v.version !== null) result = { version: v.version, valid: false, entries: v.entries };
            } catch {
              // not JSON: keep the parse error
            }
          }
        }
        if (!result.valid) failed++;
        out.push({ file, ...result });
      }
      if (format === 'json' || format === 'yaml') {
        await printResult(format, { data: () => out, table: () => '' });
      } else {
        for (const r of out) {
          for (const e of r.entries)
            (e.kind === 'error' ? process.stderr : process.stdout).write(formatEntry(r.file, e) + '\n');
          process.stdout.write(`${r.file}: ${r.valid ? `valid (spec ${r.version})` : 'invalid'}\n`);
        }
      }
      if (failed > 0) throw new CliError(`${failed} of ${files.length} config(s) invalid`);
    },
  );

  ign
    .command('merge')
    .description('Merge spec 3.x configs with Ignition semantics, parent first; prints the merged config')
    .argument('<files...>', 'config files, parent first (- for stdin)')
    .option('--experimental', 'accept spec 3.7.0-experimental', false)
    .action((files: string[], opts: { experimental: boolean }) => {
      let acc: IgnitionConfigV3 | null = null;
      for (const file of files) {
        const { version, config } = load(file, opts.experimental);
        if (version === '2.2.0') {
          throw new CliError(
            `${file}: $.ignition.version: spec 2.2.0 cannot be merged; run \`keelson ignition translate ${file} --to 3.5.0\` first`,
          );
        }
        acc = acc === null ? (config as IgnitionConfigV3) : merge(acc, config as IgnitionConfigV3);
      }
      process.stdout.write(JSON.stringify(acc, null, 2) + '\n');
    });

  ign
    .command('translate')
    .description('Translate a config to another spec version (up 3.x, 2.2->3.x like the MCO, down to 3.1 or 2.2)')
    .argument('<file>', 'config file (- for stdin)')
    .requiredOption('--to <version>', 'target spec version, e.g. 3.4.0')
    .option('--experimental', 'accept spec 3.7.0-experimental', false)
    .action((file: string, opts: { to: string; experimental: boolean }) => {
      const to = parseVersion(opts.to);
      const { config } = load(file, opts.experimental);
      try {
        process.stdout.write(
          JSON.stringify(translate(config, to, { experimental: opts.experimental }), null, 2) + '\n',
        );
      } catch (e) {
        if (e instanceof IgnitionError) {
          throw new CliError(`${file}: ${e.path.length > 0 ? `${jsonPath(e.path)}: ` : ''}${e.message}`);
        }
        throw e;
      }
    });
}
