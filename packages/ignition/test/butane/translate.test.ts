import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ButaneError, formatButaneReport, translateButane, type ButaneResult } from '../../src/butane/index.js';
import { translate as subpathTranslate } from '../../src/butane/index.js';

const dirs: string[] = [];
function filesDir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'butane-'));
  dirs.push(d);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function thrown(fn: () => unknown): ButaneError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ButaneError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

type Obj = Record<string, unknown>;
const cfg = (r: ButaneResult): Obj => r.config as Obj;
const storageFiles = (c: Obj): Obj[] => (c['storage'] as Obj)['files'] as Obj[];

const OS_HEADER = `variant: openshift
version: 4.17.0
metadata:
  name: 99-worker-custom
  labels:
    machineconfiguration.openshift.io/role: worker
`;

describe('translateButane: versions and variants', () => {
  it('maps each stable fcos and openshift version to its Ignition spec', () => {
    const cases: [string, string, string][] = [
      ['fcos', '1.0.0', '3.0.0'],
      ['fcos', '1.3.0', '3.2.0'],
      ['fcos', '1.4.0', '3.3.0'],
      ['fcos', '1.6.0', '3.5.0'],
      ['fcos', '1.7.0', '3.6.0'],
      ['openshift', '4.8.0', '3.2.0'],
      ['openshift', '4.14.0', '3.4.0'],
      ['openshift', '4.22.0', '3.5.0'],
    ];
    for (const [variant, version, ign] of cases) {
      const head =
        variant === 'openshift' ? OS_HEADER.replace('4.17.0', version) : `variant: fcos\nversion: ${version}\n`;
      const r = translateButane(head, { raw: true });
      expect(r.ignitionVersion).toBe(ign);
      expect(cfg(r)).toEqual({ ignition: { version: ign } });
    }
  });

  it('refuses unknown variants/versions and experimental ones without the flag, with upstream messages', () => {
    expect(thrown(() => translateButane('variant: fcos\nversion: 9.0.0\n')).message).toBe(
      'No translator exists for variant fcos with version 9.0.0',
    );
    expect(thrown(() => translateButane('variant: nope\nversion: 1.0.0\n')).code).toBe('BUTANE_UNKNOWN_VARIANT');
    const exp = thrown(() => translateButane('variant: fcos\nversion: 1.8.0-experimental\n'));
    expect(exp.message).toBe('No translator exists for variant fcos with version 1.8.0-experimental');
    expect(
      translateButane('variant: fcos\nversion: 1.8.0-experimental\n', { experimental: true }).ignitionVersion,
    ).toBe('3.7.0-experimental');
    expect(thrown(() => translateButane('version: 1.4.0\n')).message).toBe('error parsing variant; must be specified');
    expect(thrown(() => translateButane('variant: fcos\nversion: 1.4\n')).message).toBe(
      'error parsing version; must be a valid semver',
    );
    expect(thrown(() => translateButane('variant: rhcos\nversion: 0.1.0\n')).message).toMatch(
      /^rhcos variant has been removed/,
    );
  });
});

describe('translateButane: sugar', () => {
  it('inline contents become a URL-escaped data URL with an explicit empty compression', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\nstorage:\n  files:\n    - path: /etc/motd\n      mode: 0644\n      contents:\n        inline: hello world\n',
    );
    expect(storageFiles(cfg(r))[0]).toEqual({
      path: '/etc/motd',
      contents: { source: 'data:,hello%20world', compression: '' },
      mode: 0o644,
    });
  });

  it('compresses with gzip only when the data URL gets smaller, and not for openshift 4.8', () => {
    const big = 'all work and no play makes jack a dull boy\n'.repeat(200);
    const yamlText = `storage:\n  files:\n    - path: /etc/big\n      contents:\n        inline: ${JSON.stringify(big)}\n`;
    const r = translateButane(`variant: fcos\nversion: 1.5.0\n${yamlText}`);
    const contents = storageFiles(cfg(r))[0]!['contents'] as Obj;
    expect(contents['compression']).toBe('gzip');
    const b64 = String(contents['source']).replace('data:;base64,', '');
    expect(gunzipSync(Buffer.from(b64, 'base64')).toString()).toBe(big);
    const os48 = translateButane(`${OS_HEADER.replace('4.17.0', '4.8.0')}${yamlText}`, { raw: true });
    expect((storageFiles(cfg(os48))[0]!['contents'] as Obj)['compression']).toBe('');
  });

  it('reads contents.local and contents_local relative to filesDir', () => {
    const d = filesDir({
      'motd.txt': 'from disk\n',
      'units/a.service': '[Unit]\nDescription=a\n[Install]\nWantedBy=multi-user.target\n',
    });
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\nstorage:\n  files:\n    - path: /etc/motd\n      contents:\n        local: motd.txt\nsystemd:\n  units:\n    - name: a.service\n      enabled: true\n      contents_local: units/a.service\n',
      { filesDir: d },
    );
    expect((storageFiles(cfg(r))[0]!['contents'] as Obj)['source']).toBe('data:,from%20disk%0A');
    expect(((cfg(r)['systemd'] as Obj)['units'] as Obj[])[0]!['contents']).toContain('Description=a');
  });

  it('refuses local files without filesDir, outside it, and through symlinks leading out', () => {
    const src =
      'variant: fcos\nversion: 1.5.0\nstorage:\n  files:\n    - path: /etc/x\n      contents:\n        local: LOCAL\n';
    const none = thrown(() => translateButane(src.replace('LOCAL', 'x')));
    expect(none.code).toBe('BUTANE_INVALID');
    expect(none.report).toEqual([
      {
        kind: 'error',
        message: 'local file paths are relative to a files directory that must be specified with -d/--files-dir',
        path: '$.storage.files.0.contents.local',
        line: 7,
        column: 16,
      },
    ]);
    const d = filesDir({ 'ok.txt': 'ok' });
    const outside = filesDir({ 'secret.txt': 'secret' });
    symlinkSync(join(outside, 'secret.txt'), join(d, 'link.txt'));
    expect(
      thrown(() => translateButane(src.replace('LOCAL', '../secret.txt'), { filesDir: d })).report[0]?.message,
    ).toBe('local file path traverses outside the files directory');
    expect(thrown(() => translateButane(src.replace('LOCAL', 'link.txt'), { filesDir: d })).report[0]?.message).toBe(
      'local file path traverses outside the files directory',
    );
  });

  it('trees: files get 0644 or 0755 by their executable bit, symlinks become links', () => {
    const d = filesDir({ 'tree/etc/a.conf': 'a=1\n', 'tree/usr/local/bin/tool': '#!/bin/sh\n' });
    chmodSync(join(d, 'tree/usr/local/bin/tool'), 0o755);
    symlinkSync('a.conf', join(d, 'tree/etc/b.conf'));
    const r = translateButane('variant: fcos\nversion: 1.5.0\nstorage:\n  trees:\n    - local: tree\n', {
      filesDir: d,
    });
    const st = cfg(r)['storage'] as Obj;
    expect((st['files'] as Obj[]).map((f) => [f['path'], f['mode']])).toEqual([
      ['/etc/a.conf', 0o644],
      ['/usr/local/bin/tool', 0o755],
    ]);
    expect(st['links']).toEqual([{ path: '/etc/b.conf', target: 'a.conf' }]);
  });

  it('with_mount_unit generates a mount unit', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.4.0\nstorage:\n  filesystems:\n    - device: /dev/vdb\n      path: /var/lib/data\n      format: xfs\n      with_mount_unit: true\n',
    );
    const unit = ((cfg(r)['systemd'] as Obj)['units'] as Obj[])[0]!;
    expect(unit['name']).toBe('var-lib-data.mount');
    expect(unit['contents']).toContain('Where=/var/lib/data\nWhat=/dev/vdb\nType=xfs');
  });

  it('boot_device luks (tang) desugars to a LUKS root and an xfs filesystem', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\nboot_device:\n  luks:\n    tang:\n      - url: https://tang.example.com\n        thumbprint: abc\n',
    );
    const st = cfg(r)['storage'] as Obj;
    expect(st['luks']).toEqual([
      {
        clevis: { tang: [{ thumbprint: 'abc', url: 'https://tang.example.com' }] },
        device: '/dev/disk/by-partlabel/root',
        label: 'luks-root',
        name: 'root',
        wipeVolume: true,
      },
    ]);
    expect(st['filesystems']).toEqual([
      { device: '/dev/mapper/root', format: 'xfs', label: 'root', wipeFilesystem: true },
    ]);
  });

  it('grub users write /boot/grub2/user.cfg (fcos 1.5+)', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\ngrub:\n  users:\n    - name: root\n      password_hash: grub.pbkdf2.sha512.1.A\n',
    );
    const f = storageFiles(cfg(r))[0]!;
    expect(f['path']).toBe('/boot/grub2/user.cfg');
    expect(decodeURIComponent(String((f['append'] as Obj[])[0]!['source']).slice('data:,'.length))).toBe(
      '# Generated by Butane\n\nset superusers="root"\npassword_pbkdf2 root grub.pbkdf2.sha512.1.A\n',
    );
  });
});

describe('translateButane: validation, positions and bad input', () => {
  it('reports unused keys as warnings at the key, and decimal modes', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\nstorage:\n  files:\n    - path: /etc/x\n      mode: 644\n      bogus: 1\n',
    );
    expect(r.report).toEqual([
      { kind: 'warning', message: 'unused key bogus', path: '$.storage.files.0.bogus', line: 7, column: 7 },
      {
        kind: 'warning',
        message: 'unreasonable mode would be reasonable if specified in octal; remember to add a leading zero',
        path: '$.storage.files.0.mode',
        line: 6,
        column: 13,
      },
      // Ignition's own check of the output: decimal 644 is 0o1204, the sticky bit
      {
        kind: 'warning',
        message: 'setuid/setgid/sticky bits are not supported or functional in spec versions older than 3.6.0',
        path: '$.storage.files.0.mode',
        line: 6,
        column: 13,
      },
    ]);
    expect(formatButaneReport(r.report).split('\n')[0]).toBe(
      'warning at $.storage.files.0.bogus, line 7 col 7: unused key bogus',
    );
    const strict = thrown(() => translateButane('variant: fcos\nversion: 1.5.0\nbogus: 1\n', { strict: true }));
    expect(strict.code).toBe('BUTANE_STRICT');
    expect(strict.report).toHaveLength(1);
  });

  it('type mismatches and duplicate keys are yaml.v3 unmarshal errors with the line', () => {
    const e = thrown(() =>
      translateButane('variant: fcos\nversion: 1.5.0\nstorage:\n  files:\n    - path: /etc/x\n      mode: rw\n'),
    );
    expect(e.code).toBe('BUTANE_PARSE');
    expect(e.message.split('\n').slice(0, 2)).toEqual([
      'Error unmarshaling yaml: yaml: unmarshal errors:',
      '  line 6: cannot unmarshal !!str `rw` into int',
    ]);
    const d = thrown(() => translateButane('variant: fcos\nversion: 1.5.0\nversion: 1.4.0\n'));
    expect(d.message).toBe(
      'Error unmarshaling yaml: yaml: unmarshal errors:\n  line 3: mapping key "version" already defined at line 2',
    );
  });

  it('applies YAML merge keys (explicit keys win) and, like upstream, still warns about the `<<` key', () => {
    const r = translateButane(
      'variant: fcos\nversion: 1.5.0\nx-defaults: &file\n  mode: 0600\n  user:\n    name: core\nstorage:\n  files:\n    - <<: *file\n      path: /etc/a\n      mode: 0640\n',
    );
    expect(storageFiles(cfg(r))[0]).toEqual({ path: '/etc/a', user: { name: 'core' }, mode: 0o640 });
    expect(r.report.map((e) => e.message)).toEqual(['unused key x-defaults', 'unused key <<']);
  });

  it('reads the first YAML document only, as yaml.v3 Unmarshal', () => {
    const r = translateButane('variant: fcos\nversion: 1.4.0\n---\nvariant: fcos\nversion: 9.9.9\n');
    expect(r.ignitionVersion).toBe('3.3.0');
  });

  it('refuses alias bombs and oversized input', () => {
    let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++)
      bomb += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
    expect(thrown(() => translateButane(`variant: fcos\nversion: 1.5.0\n${bomb}`)).code).toBe('BUTANE_TOO_LARGE');
    expect(thrown(() => translateButane(new Uint8Array(17 * 1024 * 1024))).code).toBe('BUTANE_TOO_LARGE');
  });

  it('boot_device mirror with one device and an unknown layout', () => {
    const e = thrown(() =>
      translateButane(
        'variant: fcos\nversion: 1.6.0\nboot_device:\n  layout: sparc\n  mirror:\n    devices: [/dev/sda]\n',
      ),
    );
    expect(e.report.map((x) => [x.path, x.message])).toEqual([
      ['$.boot_device.layout', 'layout must be one of: aarch64, ppc64le, s390x-eckd, s390x-virt, s390x-zfcp, x86_64'],
      ['$.boot_device.mirror.devices', 'mirroring requires at least two devices'],
    ]);
  });
});

describe('translateButane: openshift', () => {
  it('produces the MachineConfig upstream produces', () => {
    const r = translateButane(
      `${OS_HEADER}openshift:\n  kernel_arguments: [nosmt]\n  extensions: [usbguard]\n  fips: true\n  kernel_type: realtime\n`,
    );
    expect(r.config).toEqual({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-worker-custom', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: {
        config: { ignition: { version: '3.4.0' } },
        kernelArguments: ['nosmt'],
        extensions: ['usbguard'],
        fips: true,
        kernelType: 'realtime',
      },
    });
  });

  it('requires metadata.name and the role label', () => {
    const e = thrown(() => translateButane('variant: openshift\nversion: 4.17.0\n'));
    expect(e.message.split('\n')[0]).toBe('source config is invalid');
    expect(e.report.map((x) => [x.path, x.message])).toEqual([
      ['$.metadata.name', 'metadata.name is required'],
      ['$.metadata.labels', 'machineconfiguration.openshift.io/role label is required'],
    ]);
  });

  it('refuses what the MCO does not support, at the source position', () => {
    const e = thrown(() =>
      translateButane(
        `${OS_HEADER}passwd:\n  users:\n    - name: alice\nstorage:\n  directories:\n    - path: /etc/d\n`,
      ),
    );
    expect(e.report).toEqual([
      {
        kind: 'error',
        message: 'users other than "core" are not supported in this spec version',
        path: '$.passwd.users.0.name',
        line: 9,
        column: 13,
      },
    ]);
    const f = thrown(() => translateButane(`${OS_HEADER}storage:\n  directories:\n    - path: /etc/d\n`));
    expect(f.report.map((x) => [x.path, x.message, x.line])).toEqual([
      ['$.storage.directories', 'directories are not supported in this spec version', 9],
    ]);
    const k = thrown(() => translateButane(`${OS_HEADER}kernel_arguments:\n  should_exist: [x]\n`));
    expect(k.report[0]?.message).toBe(
      'this section cannot be used for kernel arguments in this spec version; use openshift.kernel_arguments instead',
    );
    const t = thrown(() => translateButane(`${OS_HEADER}openshift:\n  kernel_type: rt\n`));
    expect(t.report[0]?.path).toBe('$.openshift.kernel_type');
  });

  it('is also exported as translate from the butane entry point', () => {
    expect(subpathTranslate).toBe(translateButane);
  });
});
