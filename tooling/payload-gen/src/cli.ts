#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { generatePayload } from './index.js';

const USAGE = `Usage: keelson-payload-gen --out DIR [--seed N] [--version X.Y.Z] [--components N] [--size-factor F]

Writes a deterministic synthetic OpenShift release directory (release-manifests/, manifests/).`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string' },
        seed: { type: 'string' },
        version: { type: 'string' },
        components: { type: 'string' },
        'size-factor': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.out === undefined || values.out === '') {
    process.stderr.write(`error: --out DIR is required\n${USAGE}\n`);
    return 2;
  }
  const num = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new TypeError(`--${name} must be a number, got ${JSON.stringify(v)}`);
    return n;
  };
  try {
    const seed = num('seed', values.seed);
    const components = num('components', values.components);
    const sizeFactor = num('size-factor', values['size-factor']);
    const result = await generatePayload({
      out: values.out,
      ...(seed !== undefined ? { seed } : {}),
      ...(values.version !== undefined ? { version: values.version } : {}),
      ...(components !== undefined ? { components } : {}),
      ...(sizeFactor !== undefined ? { sizeFactor } : {}),
    });
    process.stdout.write(
      `wrote ${values.out}: ${result.manifests} manifests in ${result.files} files (${result.multiDocumentFiles} multi-document, ${result.jobs} Jobs, ${result.excluded} excluded by default profile/feature set), ${result.components} components, ${(result.bytes / 1e6).toFixed(1)} MB\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
