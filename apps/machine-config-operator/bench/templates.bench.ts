/**
 * Rendering upstream's whole release-4.20 templates/ tree for one ControllerConfig (the template controller's sync):
 * warm (templates parsed once and the transpiled entries kept, as the controller keeps its tree: a resync), warm after
 * a change (templates kept, every rendered text read as YAML again: the first sync of a changed ControllerConfig) and
 * cold (tree read, parsed, rendered and transpiled each time, as upstream's Go controller does on every sync).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ControllerConfig } from '../src/common/api-types.js';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import { generateTemplateMachineConfigs, loadTemplateTree } from '@keelson/machineconfig';

const cc = {
  metadata: { name: 'machine-config-controller', uid: 'u' },
  ...(parseYaml(
    readFileSync(join(import.meta.dirname, '../test/data/upstream-template/controller_config_baremetal.yaml'), 'utf8'),
  ) as object),
} as ControllerConfig;
const warmTree = loadTemplateTree(defaultTemplatesDir());
generateTemplateMachineConfigs(warmTree, cc, 'v', { pullSecret: '{"auths":{}}' });
const changedTree = loadTemplateTree(defaultTemplatesDir());
generateTemplateMachineConfigs(changedTree, cc, 'v', { pullSecret: '{"auths":{}}' });

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('template controller: whole tree, one ControllerConfig (bare metal, on-prem)', async ({ bench }) => {
  await bench.compare(
    bench('warm (parsed templates and transpiled entries kept)', () => {
      generateTemplateMachineConfigs(warmTree, cc, 'v', { pullSecret: '{"auths":{}}' });
    }),
    bench('warm after a change (parsed templates kept, YAML read again)', () => {
      delete changedTree.transpiled;
      generateTemplateMachineConfigs(changedTree, cc, 'v', { pullSecret: '{"auths":{}}' });
    }),
    bench('cold (read + parse + render)', () => {
      generateTemplateMachineConfigs(loadTemplateTree(defaultTemplatesDir()), cc, 'v', { pullSecret: '{"auths":{}}' });
    }),
    { time: 3000 },
  );
});
