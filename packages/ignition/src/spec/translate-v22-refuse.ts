/**
 * ign-converter (`translate/v32tov22`) refusals: a field spec 2.2 cannot express fails, naming its path. Used by
 * `to22` in `translate-v22.ts`.
 */
import type { JsonPath } from './types.js';
import { asList, asObj, fail, isTrue, present, type Obj } from './translate-common.js';

/** ign-converter (`translate/v32tov22`): a field spec 2.2 cannot express fails, naming its path. */
export function refuseWhat22CannotHold(cfg: Obj, from: string, to: string): void {
  refuseIgnition22(asObj(cfg['ignition']), from, to);
  refuseStorageAndPasswd22(cfg, from, to);
}

/** `ignition`: merge/replace/CA compression and headers, proxies. */
function refuseIgnition22(ign: Obj, from: string, to: string): void {
  const ic = asObj(ign['config']);
  asList(ic['merge']).forEach((r, i) => {
    if (present(asObj(r)['compression']))
      fail('Compression in Ignition.Config.Merge is not supported on 2.2', from, to, [
        'ignition',
        'config',
        'merge',
        i,
        'compression',
      ]);
    if (asList(asObj(r)['httpHeaders']).length > 0)
      fail('HTTPHeaders in Ignition.Config.Merge are not supported on 2.2', from, to, [
        'ignition',
        'config',
        'merge',
        i,
        'httpHeaders',
      ]);
  });
  const replace = asObj(ic['replace']);
  if (present(replace['compression']))
    fail('Compression in Ignition.Config.Replace is not supported on 2.2', from, to, [
      'ignition',
      'config',
      'replace',
      'compression',
    ]);
  if (asList(replace['httpHeaders']).length > 0)
    fail('HTTPHeaders in Ignition.Config.Replace are not supported on 2.2', from, to, [
      'ignition',
      'config',
      'replace',
      'httpHeaders',
    ]);
  const cas = asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).map(asObj);
  cas.forEach((r, i) => {
    const p: JsonPath = ['ignition', 'security', 'tls', 'certificateAuthorities', i];
    if (present(r['compression']))
      fail('Compression in Ignition.Security.TLS.CertificateAuthorities is not supported on 2.2', from, to, [
        ...p,
        'compression',
      ]);
    if (asList(r['httpHeaders']).length > 0)
      fail('HTTPHeaders in Ignition.Security.TLS.CertificateAuthorities are not supported on 2.2', from, to, [
        ...p,
        'httpHeaders',
      ]);
  });
  const proxy = asObj(ign['proxy']);
  if (present(proxy['httpProxy']) || present(proxy['httpsProxy']) || asList(proxy['noProxy']).length > 0) {
    fail('HTTP proxies in Ignition.Proxy are not supported on 2.2', from, to, ['ignition', 'proxy']);
  }
}

/** `storage` and `passwd`: LUKS, `shouldExist: false`, partition sizes/resize, mount options, HTTP headers. */
function refuseStorageAndPasswd22(cfg: Obj, from: string, to: string): void {
  const storage = asObj(cfg['storage']);
  if (asList(storage['luks']).length > 0) fail('LUKS is not supported on 2.2', from, to, ['storage', 'luks']);
  const passwd = asObj(cfg['passwd']);
  asList(passwd['users']).forEach((u, i) => {
    if (asObj(u)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Users is not supported on 2.2', from, to, ['passwd', 'users', i, 'shouldExist']);
  });
  asList(passwd['groups']).forEach((g, i) => {
    if (asObj(g)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Groups is not supported on 2.2', from, to, ['passwd', 'groups', i, 'shouldExist']);
  });
  asList(storage['disks']).forEach((d, i) => {
    asList(asObj(d)['partitions']).forEach((p, j) => {
      const part = asObj(p);
      const pp: JsonPath = ['storage', 'disks', i, 'partitions', j];
      if (present(part['sizeMiB']) || present(part['startMiB']))
        fail('SizeMiB and StartMiB in Storage.Disks.Partitions is not supported on 2.2', from, to, pp);
      if (isTrue(part['resize']))
        fail('Resize in Storage.Disks.Partitions is not supported on 2.2', from, to, [...pp, 'resize']);
    });
  });
  const filesystems = asList(storage['filesystems']).map(asObj);
  filesystems.forEach((f, i) => {
    if (present(f['mountOptions']))
      fail('MountOptions in Storage.Filesystems is not supported on 2.2', from, to, [
        'storage',
        'filesystems',
        i,
        'mountOptions',
      ]);
  });
  const files = asList(storage['files']).map(asObj);
  files.forEach((f, i) => {
    if (asList(asObj(f['contents'])['httpHeaders']).length > 0)
      fail('HTTPHeaders in Storage.Files.Contents are not supported on 2.2', from, to, [
        'storage',
        'files',
        i,
        'contents',
        'httpHeaders',
      ]);
    asList(f['append']).forEach((a, j) => {
      if (asList(asObj(a)['httpHeaders']).length > 0)
        fail('HTTPHeaders in Storage.Files.Append.* are not supported on 2.2', from, to, [
          'storage',
          'files',
          i,
          'append',
          j,
          'httpHeaders',
        ]);
    });
  });
}
