/**
 * The config.openshift.io CRDs of the cluster configuration objects the installer creates and the
 * machine-config-operator reads (`crds/config/`, unmodified openshift/api release-4.20 files): Infrastructure,
 * Network, Proxy, DNS, APIServer, Image.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CustomResourceDefinition } from './apiextensions.js';
import { CrdError } from './crds.js';

/** Absolute path of the folder holding them (`<package>/crds/config`). */
export const CONFIG_CRD_DIR: string = fileURLToPath(new URL('../crds/config/', import.meta.url));

let cached: Promise<CustomResourceDefinition[]> | undefined;

async function parseAll(): Promise<CustomResourceDefinition[]> {
  const { parse } = await import('yaml');
  const files = (await readdir(CONFIG_CRD_DIR)).filter((f) => f.endsWith('.crd.yaml')).sort();
  return Promise.all(
    files.map(async (f) => {
      const path = `${CONFIG_CRD_DIR}${f}`;
      const crd = parse(await readFile(path, 'utf8')) as Partial<CustomResourceDefinition> | null;
      if (crd?.kind !== 'CustomResourceDefinition')
        throw new CrdError('INVALID', `${path} is not a CustomResourceDefinition; reinstall @keelson/api`, path);
      return crd as CustomResourceDefinition;
    }),
  );
}

/** The config.openshift.io CRDs, parsed, in file-name order (each call returns fresh copies). */
export async function loadConfigCrds(): Promise<CustomResourceDefinition[]> {
  cached ??= parseAll();
  cached.catch(() => {
    cached = undefined;
  });
  return structuredClone(await cached);
}
