import { test } from 'vitest';
import { merge, parseConfig, translate, validate, type IgnitionConfigV3 } from '../dist/index.js'; // the built package: no module-runner getter overhead

/** A large, valid 3.5.0 config: `files` files, `units` units with a dropin each, 20 users. */
function bigConfig(files: number, units: number, tag: string): IgnitionConfigV3 {
  return {
    ignition: { version: '3.5.0' },
    passwd: {
      users: Array.from({ length: 20 }, (_, i) => ({
        name: `user${i}`,
        sshAuthorizedKeys: [`ssh-ed25519 AAAA${tag}${i} k`],
      })),
    },
    storage: {
      files: Array.from({ length: files }, (_, i) => ({
        path: `/etc/keelson/${i % 50}/file-${i}.conf`,
        mode: 0o644,
        overwrite: true,
        contents: { source: `data:,${tag}%20content%20${i}%0A`, compression: '' },
        user: { name: 'root' },
      })),
      directories: Array.from({ length: 50 }, (_, i) => ({ path: `/etc/keelson/${i}`, mode: 0o755 })),
    },
    systemd: {
      units: Array.from({ length: units }, (_, i) => ({
        name: `keelson-${i}.service`,
        enabled: true,
        contents: `[Unit]\nDescription=unit ${i}\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n`,
        dropins: [{ name: '10-env.conf', contents: `[Service]\nEnvironment=TAG=${tag}\n` }],
      })),
    },
  };
}

const big = bigConfig(5000, 500, 'a');
const bigText = JSON.stringify(big);
const child = bigConfig(5000, 500, 'b');

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('Ignition spec: 5,000 files, 500 units, 50 directories', async ({ bench }) => {
  await bench.compare(
    bench(`parseConfig (JSON.parse + schema + rules, ${(bigText.length / 1024 / 1024).toFixed(1)} MiB)`, () => {
      parseConfig(bigText);
    }),
    bench('validate (object)', () => {
      validate(big);
    }),
    bench('merge (every entry keyed and merged field-wise)', () => {
      merge(big, child);
    }),
    bench('translate 3.5.0 -> 2.2.0', () => {
      translate(big, '2.2.0');
    }),
    { time: 2000 },
  );
}, 600_000);
