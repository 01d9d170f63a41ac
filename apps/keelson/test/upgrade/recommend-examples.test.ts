/**
 * `keelson upgrade recommend` against upstream's own examples (openshift/oc pkg/cli/admin/upgrade/recommend/examples,
 * copied in test/fixtures/upstream/oc-upgrade-recommend): plain, `--show-outdated-releases` and `--version V`, byte for byte.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ClusterVersion } from '../../src/upgrade/api-types.js';
import { recommend, type AcceptableCondition, type RecommendOptions } from '../../src/upgrade/recommend.js';
import { alertConditions } from '../../src/upgrade/recommend-alerts.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'oc-upgrade-recommend');

/** Upstream's mock precheck: the alerts file, or NoTestData when the case has none. */
function precheck(name: string): { conditions: AcceptableCondition[] } {
  const file = join(DIR, `${name}-alerts.json`);
  if (!existsSync(file))
    return {
      conditions: [
        {
          type: 'recommended/Alert',
          status: 'Unknown',
          reason: 'NoTestData',
          message: `This --mock-clusterversion run did not have alert data available at examples/${name}-alerts.json`,
          acceptanceName: 'AlertNoTestData',
        },
      ],
    };
  return { conditions: alertConditions(readFileSync(file, 'utf8')) };
}

/** What oc's example test compares: stdout, then "\nerror: …\n" when the command failed. */
function run(name: string, o: RecommendOptions): string {
  // the file holds the object or a List of one (upstream decodes both)
  const doc = parse(readFileSync(join(DIR, `${name}-cv.yaml`), 'utf8')) as ClusterVersion & {
    items?: ClusterVersion[];
  };
  const cv = doc.items?.[0] ?? doc;
  const r = recommend(cv, o, precheck(name));
  const out = r.chunks
    .filter((c) => c.stream === 'out')
    .map((c) => c.text)
    .join('');
  return r.error === undefined ? out : `${out}\nerror: ${r.error}\n`;
}

const files = readdirSync(DIR);
const cases = files
  .filter((f) => f.endsWith('-cv.yaml'))
  .map((f) => f.slice(0, -'-cv.yaml'.length))
  .sort();

describe('oc adm upgrade recommend examples', () => {
  it('has the copied cases', () => expect(cases.length).toBeGreaterThanOrEqual(4));
  for (const name of cases) {
    const expected = (suffix: string): string => readFileSync(join(DIR, `${name}${suffix}`), 'utf8');
    it(name, () => expect(run(name, {})).toBe(expected('.output')));
    it(`${name} --show-outdated-releases`, () =>
      expect(run(name, { showOutdatedReleases: true })).toBe(expected('.show-outdated-releases-output')));
    for (const f of files.filter((x) => x.startsWith(`${name}.version-`))) {
      const version = f.slice(`${name}.version-`.length, -'-output'.length);
      it(`${name} --version ${version}`, () =>
        expect(run(name, { version })).toBe(expected(`.version-${version}-output`)));
    }
  }
});
