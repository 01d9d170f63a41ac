import { MAX_DEPTH, tooDeep, withoutProtoKeys } from './errors.js';
import { goParseURL } from './goparse.js';
import {
  asList,
  asObj,
  checkValid,
  fail,
  isTrue,
  minorOf,
  notEmpty,
  present,
  prune,
  str,
  versionOf,
  type Obj,
} from './translate-common.js';
import { dedupeV2, from22, to22 } from './translate-v22.js';
import { SPEC3_VERSIONS, type IgnitionConfig, type JsonPath, type Spec3Version, type SpecVersion } from './types.js';

/** Sets the version in place (translate works on its own deep copy). */
function withVersion(cfg: Obj, version: string): Obj {
  cfg['ignition'] = { ...asObj(cfg['ignition']), version };
  return cfg;
}

/** One up step 3.(m-1) → 3.m. */
function stepUp(cfg: Obj, toMinor: number, toVersion: string): Obj {
  const out = withVersion(cfg, toVersion);
  const storage = asObj(out['storage']);
  if (toMinor === 3) {
    // raid.level and links.target become optional strings, always set; 3.2 clevis/custom pointers become values
    for (const r of asList(storage['raid'])) asObj(r)['level'] = str(asObj(r)['level']);
    for (const l of asList(storage['links'])) asObj(l)['target'] = str(asObj(l)['target']);
    for (const l of asList(storage['luks'])) {
      const clevis = asObj(l)['clevis'];
      if (present(clevis)) {
        const custom = asObj(clevis)['custom'];
        if (present(custom)) {
          const c = asObj(custom);
          c['pin'] = str(c['pin']);
          c['config'] = str(c['config']);
        }
      }
    }
  }
  if (toMinor === 6) {
    for (const kind of ['files', 'directories']) {
      for (const n of asList(storage[kind])) {
        const o = asObj(n);
        if (typeof o['mode'] === 'number') o['mode'] = o['mode'] & ~0o7000;
      }
    }
  }
  return out;
}

/** Walks every Resource of a 3.x config. */
function resources(cfg: Obj): { res: Obj; path: JsonPath }[] {
  const out: { res: Obj; path: JsonPath }[] = [];
  const ign = asObj(cfg['ignition']);
  const ic = asObj(ign['config']);
  asList(ic['merge']).forEach((r, i) => out.push({ res: asObj(r), path: ['ignition', 'config', 'merge', i] }));
  if (present(ic['replace'])) out.push({ res: asObj(ic['replace']), path: ['ignition', 'config', 'replace'] });
  asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).forEach((r, i) =>
    out.push({ res: asObj(r), path: ['ignition', 'security', 'tls', 'certificateAuthorities', i] }),
  );
  const storage = asObj(cfg['storage']);
  asList(storage['files']).forEach((f, i) => {
    const file = asObj(f);
    if (present(file['contents']))
      out.push({ res: asObj(file['contents']), path: ['storage', 'files', i, 'contents'] });
    asList(file['append']).forEach((a, j) => out.push({ res: asObj(a), path: ['storage', 'files', i, 'append', j] }));
  });
  asList(storage['luks']).forEach((l, i) => {
    const k = asObj(l)['keyFile'];
    if (present(k)) out.push({ res: asObj(k), path: ['storage', 'luks', i, 'keyFile'] });
  });
  return out;
}

/** What one down step works on: the copy being converted and the versions named in its refusals. */
interface DownStep {
  out: Obj;
  storage: Obj;
  luks: Obj[];
  from: string;
  to: string;
}

/** One down step 3.m → 3.(m-1), with ign-converter's refusals. */
function stepDown(cfg: Obj, fromMinor: number, from: string, to: string, inputValidated: boolean): Obj {
  const fromVersion = versionOf(cfg);
  const toVersion = `3.${fromMinor - 1}.0`;
  const prefix = fromMinor >= 5 ? 'invalid input config' : 'Invalid input config';
  // each converter validates its input; the output of the previous step was validated already
  if (!inputValidated) checkValid(cfg, fromVersion, from, to, prefix);
  const out = withVersion(cfg, toVersion);
  const storage = asObj(out['storage']);
  const step: DownStep = { out, storage, luks: asList(storage['luks']).map(asObj), from, to };
  DOWN_STEPS[fromMinor]?.(step);
  const result = prune(out);
  checkValid(
    result,
    toVersion,
    from,
    to,
    fromMinor >= 5 ? 'converted spec has unexpected fatal error' : 'Converted spec has unexpected fatal error',
  );
  return result;
}

/** 3.7 → 3.6: virtiofs filesystems cannot be expressed. */
function down7to6({ storage, from, to }: DownStep): void {
  asList(storage['filesystems']).forEach((f, i) => {
    if (asObj(f)['format'] === 'virtiofs')
      fail('invalid input config: virtiofs filesystems are not supported in spec v3.6', from, to, [
        'storage',
        'filesystems',
        i,
        'format',
      ]);
  });
}

/** 3.5 → 3.4: no CEX; tang keeps only url and thumbprint. */
function down5to4({ luks, from, to }: DownStep): void {
  luks.forEach((l, i) => {
    if (isTrue(asObj(l['cex'])['enabled']))
      fail("invalid input config: 'Cex' type is not supported in spec v3.4", from, to, ['storage', 'luks', i, 'cex']);
    delete l['cex'];
    // ign-converter's 3.5→3.4 tang translator copies only url and thumbprint
    for (const t of asList(asObj(l['clevis'])['tang'])) delete asObj(t)['advertisement'];
  });
}

/** 3.4 → 3.3: no tang advertisement, LUKS discard/openOptions, special mode bits or `arn:` sources. */
function down4to3(step: DownStep): void {
  const { luks, storage, from, to } = step;
  luks.forEach((l, i) => {
    asList(asObj(l['clevis'])['tang']).forEach((t, j) => {
      if (notEmpty(asObj(t)['advertisement'])) {
        fail('Invalid input config: tang offline provisioning is not supported in spec v3.3', from, to, [
          'storage',
          'luks',
          i,
          'clevis',
          'tang',
          j,
          'advertisement',
        ]);
      }
    });
    if (isTrue(l['discard']))
      fail('Invalid input config: luks discard is not supported in spec v3.3', from, to, [
        'storage',
        'luks',
        i,
        'discard',
      ]);
    if (asList(l['openOptions']).length > 0)
      fail('Invalid input config: luks openOptions is not supported in spec v3.3', from, to, [
        'storage',
        'luks',
        i,
        'openOptions',
      ]);
  });
  for (const kind of ['files', 'directories']) {
    asList(storage[kind]).forEach((n, i) => {
      const m = asObj(n)['mode'];
      if (typeof m === 'number' && (m & 0o7000) !== 0)
        fail('Invalid input config: special mode bits are not supported in spec v3.3', from, to, [
          'storage',
          kind,
          i,
          'mode',
        ]);
    });
  }
  refuseArnSources(step);
}

function refuseArnSources({ out, from, to }: DownStep): void {
  for (const { res, path } of resources(out)) {
    if (notEmpty(res['source'])) {
      const u = goParseURL(str(res['source']));
      if (!u) fail('Invalid input config: unable to parse url', from, to, [...path, 'source']);
      if (u.scheme === 'arn')
        fail('Invalid input config: arn: scheme for s3 is not supported in spec v3.3', from, to, [...path, 'source']);
    }
  }
}

/** 3.3 → 3.2: no kernel arguments; a null raid level and empty clevis parts are dropped. */
function down3to2({ out, storage, luks, from, to }: DownStep): void {
  const ka = asObj(out['kernelArguments']);
  if (asList(ka['shouldExist']).length > 0 || asList(ka['shouldNotExist']).length > 0) {
    fail('KernelArguments is not supported on 3.2', from, to, ['kernelArguments']);
  }
  delete out['kernelArguments'];
  for (const r of asList(storage['raid'])) if (asObj(r)['level'] === null) delete asObj(r)['level'];
  for (const l of luks) {
    const clevis = asObj(l['clevis']);
    const custom = asObj(clevis['custom']);
    const customEmpty = !present(custom['pin']) && !present(custom['config']) && !present(custom['needsNetwork']);
    if (customEmpty) delete clevis['custom'];
    const clevisEmpty = Object.keys(prune(clevis)).length === 0;
    if (clevisEmpty) delete l['clevis'];
  }
}

/** 3.2 → 3.1: no LUKS, `shouldExist: false` users/groups or partition resize. */
function down2to1({ out, storage, luks, from, to }: DownStep): void {
  if (luks.length > 0) fail('LUKS is not supported on 3.1', from, to, ['storage', 'luks']);
  delete storage['luks'];
  const passwd = asObj(out['passwd']);
  asList(passwd['users']).forEach((u, i) => {
    if (asObj(u)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Users is not supported on 3.1', from, to, ['passwd', 'users', i, 'shouldExist']);
    delete asObj(u)['shouldExist'];
  });
  asList(passwd['groups']).forEach((g, i) => {
    if (asObj(g)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Groups is not supported on 3.1', from, to, ['passwd', 'groups', i, 'shouldExist']);
    delete asObj(g)['shouldExist'];
  });
  asList(storage['disks']).forEach((d, i) => {
    asList(asObj(d)['partitions']).forEach((p, j) => {
      if (isTrue(asObj(p)['resize']))
        fail('Resize in Storage.Disks.Partitions is not supported on 3.1', from, to, [
          'storage',
          'disks',
          i,
          'partitions',
          j,
          'resize',
        ]);
      delete asObj(p)['resize'];
    });
  });
}

/** The refusals and removals of each down step, by the minor version it starts from (3.6 → 3.5 has none). */
const DOWN_STEPS: Record<number, ((step: DownStep) => void) | undefined> = {
  7: down7to6,
  5: down5to4,
  4: down4to3,
  3: down3to2,
  2: down2to1,
};

/** 3.2 → 2.2 (ign-converter v32tov22). */
/** Options of {@link translate}. */
export interface TranslateOptions {
  /** Allow 3.7.0-experimental as source or target (off by default). */
  experimental?: boolean;
}

/**
 * Translates a config to another spec version.
 * - Up 3.x → 3.y: upstream's lossless translators (raid level / link target made explicit at 3.3,
 *   special mode bits dropped at 3.6).
 * - 2.2 → 3.x: as the MCO does it: files de-duplicated by path (last wins), units by name (dropins
 *   unioned), users collapsed into the single allowed `core` user, then ign-converter 2.x→3.0 with the
 *   `root` filesystem mapped to `/`, then up.
 * - Down 3.y → 3.1 and 3.y → 2.2 (via 3.2): ign-converter's steps; anything the older spec cannot
 *   express throws {@link IgnitionTranslateError} naming the field. 3.0 is not a down target
 *   (no converter exists upstream).
 */
export function translate(input: IgnitionConfig, toVersion: SpecVersion, opts: TranslateOptions = {}): IgnitionConfig {
  const from = versionOf(input);
  const deep = tooDeep(input);
  if (deep) fail(`config nests deeper than ${MAX_DEPTH} levels`, from, toVersion, deep.slice(0, 8));
  const config = withoutProtoKeys(input);
  const experimental = opts.experimental ?? false;
  const known: readonly string[] = ['2.2.0', ...SPEC3_VERSIONS];
  if (!known.includes(from) || (from === '3.7.0-experimental' && !experimental)) {
    fail(`unsupported config version "${from}": translate accepts 2.2.0 and 3.0.0-3.6.0`, from, toVersion, [
      'ignition',
      'version',
    ]);
  }
  if (!known.includes(toVersion) || (toVersion === '3.7.0-experimental' && !experimental)) {
    fail(`unsupported target version "${toVersion}"`, from, toVersion);
  }
  if (from === toVersion) return structuredClone(config);
  let cur = structuredClone(config) as Obj;
  if (from === '2.2.0') {
    cur = from22(dedupeV2(cur) as Obj, toVersion);
  }
  const curMinor = (): number => minorOf(versionOf(cur));
  if (toVersion === '2.2.0') {
    let validated = false;
    while (curMinor() > 2) {
      cur = stepDown(cur, curMinor(), from, toVersion, validated);
      validated = true;
    }
    // 3.0 and 3.1 go up (losslessly) to 3.2 first, then through the 3.2 -> 2.2 converter
    while (curMinor() < 2) cur = stepUp(cur, curMinor() + 1, `3.${curMinor() + 1}.0`);
    return to22(cur, from, toVersion, validated);
  }
  const target = minorOf(toVersion);
  while (curMinor() < target) {
    const next = curMinor() + 1;
    cur = stepUp(cur, next, SPEC3_VERSIONS[next] as Spec3Version);
  }
  if (curMinor() > target) {
    if (target < 1)
      fail('the requested conversion is not supported: there is no converter down to spec 3.0.0', from, toVersion);
    let validated = false;
    while (curMinor() > target) {
      cur = stepDown(cur, curMinor(), from, toVersion, validated);
      validated = true;
    }
  }
  return cur;
}
