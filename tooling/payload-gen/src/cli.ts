#!/usr/bin/env node
import { parseArgs } from 'node:util';
// the Node check runs before the generator (and its dependencies) is loaded
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('keelson-payload-gen');
const { generatePayload, generateRehearsalReleases } = await import('./bundle.js');

const USAGE = `Usage: keelson-payload-gen --out DIR [--seed N] [--version X.Y.Z] [--components N] [--size-factor F]
       keelson-payload-gen --rehearsal --out DIR [--seed N] [--from-version X.Y.Z] [--to-version X.Y.Z]

Writes a deterministic synthetic OpenShift release directory (release-manifests/, manifests/).
With --rehearsal: releases A and B for rehearsing an update (DIR/<from-version>, DIR/<to-version>).`;

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
        rehearsal: { type: 'boolean' },
        'from-version': { type: 'string' },
        'to-version': { type: 'string' },
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
    if (values.rehearsal === true) {
      const r = await generateRehearsalReleases({
        out: values.out,
        ...(seed !== undefined ? { seed } : {}),
        ...(values['from-version'] !== undefined ? { fromVersion: values['from-version'] } : {}),
        ...(values['to-version'] !== undefined ? { toVersion: values['to-version'] } : {}),
      });
      process.stdout.write(
        `wrote ${r.from.dir} and ${r.to.dir}: B changes ${r.changedManifest}, deletes via release.openshift.io/delete ${r.deletedManifest}, adds kernel argument ${r.addedKernelArgument}, moves RHCOS to ${r.to.baseOSContainerImage}\n`,
      );
      return 0;
    }
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
