/**
 * The template tree's transpile cache: entries are read as YAML once per rendered text and kept across generate calls
 * (a resync of an unchanged ControllerConfig parses no YAML), callers get copies, the cache is bounded, and a text
 * that does not transpile fails every time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ControllerConfig } from '../src/common/api-types.js';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import {
  generateTemplateMachineConfigs,
  loadTemplateTree,
  TranspileCache,
  TranspileError,
  transpileToIgnition,
} from '@keelson/machineconfig';

const fixture = (name: string): ControllerConfig =>
  ({
    metadata: { name: 'machine-config-controller', uid: 'u' },
    ...(parseYaml(readFileSync(join(import.meta.dirname, 'data/upstream-template', name), 'utf8')) as object),
  }) as ControllerConfig;

const FILE = 'path: /etc/a\nmode: 0644\ncontents:\n  inline: |\n    hello\n';

describe('TranspileCache', () => {
  it('hands out copies: a caller that edits its entry does not change the next one', () => {
    const cache = new TranspileCache();
    const first = transpileToIgnition([FILE], [], cache);
    const files = (first['storage'] as { files: Array<Record<string, unknown>> }).files;
    expect(files[0]).toMatchObject({ path: '/etc/a', mode: 420, contents: { source: 'data:,hello%0A' } });
    (files[0] as Record<string, unknown>)['path'] = '/changed';
    expect(cache.size).toBe(1);
    expect(transpileToIgnition([FILE], [], cache)).toEqual(transpileToIgnition([FILE], []));
  });
  it('is bounded: cleared once it holds `limit` texts', () => {
    const cache = new TranspileCache(3);
    for (let i = 0; i < 3; i++) cache.entry('file', `path: /etc/${i}\n`);
    expect(cache.size).toBe(3);
    cache.entry('unit', 'name: x.service\n');
    expect(cache.size).toBe(1);
  });
  it('does not keep failures: a bad text fails on every call', () => {
    const cache = new TranspileCache();
    for (let i = 0; i < 2; i++)
      expect(() => cache.entry('file', 'path: [1, 2]\n')).toThrow(
        new TranspileError('json: cannot unmarshal array into Go struct field File.path of type string'),
      );
    expect(cache.size).toBe(0);
  });
});

describe('generateTemplateMachineConfigs with the tree kept', () => {
  it('transpiles each rendered text once across calls; the output is what a fresh tree gives, for each fixture', () => {
    const tree = loadTemplateTree(defaultTemplatesDir());
    const bm = fixture('controller_config_baremetal.yaml');
    const aws = fixture('controller_config_aws.yaml');
    const first = generateTemplateMachineConfigs(tree, bm, 'v', { pullSecret: '{}' });
    const size = tree.transpiled?.size ?? 0;
    expect(size).toBeGreaterThan(50);
    // the caller owns its MachineConfigs: edits do not leak into later calls
    const edited = first[0]?.spec?.config as Record<string, unknown> | undefined;
    if (edited === undefined) throw new Error('no MachineConfig generated');
    edited['storage'] = {};
    expect(generateTemplateMachineConfigs(tree, bm, 'v', { pullSecret: '{}' })).toEqual(
      generateTemplateMachineConfigs(loadTemplateTree(defaultTemplatesDir()), bm, 'v', { pullSecret: '{}' }),
    );
    expect(tree.transpiled?.size).toBe(size);
    // another ControllerConfig renders other texts: they are added, and the output is still a fresh tree's
    expect(generateTemplateMachineConfigs(tree, aws, 'v', { pullSecret: '{}' })).toEqual(
      generateTemplateMachineConfigs(loadTemplateTree(defaultTemplatesDir()), aws, 'v', { pullSecret: '{}' }),
    );
    expect(tree.transpiled?.size).toBeGreaterThan(size);
  });
});
