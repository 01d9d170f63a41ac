/**
 * The CEL environment of CRD validation rules: the CEL standard library and string extensions (from
 * @marcbachmann/cel-js) plus the Kubernetes CEL library functions that CRD rules use: `isIP`, `ip().family()`,
 * `isCIDR`, `cidr()`, `isURL`, the `format.<name>().validate()` named formats, global `matches`, and the list
 * helpers `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf` (k8s.io/apiserver/pkg/cel/library).
 */
import { isIP as netIsIP } from 'node:net';
import { Environment, Optional } from '@marcbachmann/cel-js';

/** A `net.IP` value (Kubernetes IP library). */
export class CelIP {
  constructor(readonly address: string) {}
}

/** A `net.CIDR` value (Kubernetes CIDR library). */
export class CelCIDR {
  constructor(
    readonly address: string,
    readonly prefix: number,
  ) {}
}

/** The `format` namespace object of the Kubernetes format library. */
export class CelFormats {
  /** Type name CEL reports for this value. */
  readonly celType = 'kubernetes.Formats';
}

/** A named format (`format.dns1123Subdomain()` ...). */
export class CelNamedFormat {
  constructor(readonly check: (s: string) => string[]) {}
}

/** `isIP`: an IPv4 (dotted decimal, no leading zeros) or IPv6 address, without zone and not IPv4-mapped. */
export function parseIP(s: string): CelIP | undefined {
  if (s.includes('%')) return undefined;
  const fam = netIsIP(s);
  if (fam === 0) return undefined;
  if (fam === 6 && /^::ffff:(\d+\.){3}\d+$/i.test(s)) return undefined;
  return new CelIP(s);
}

/** `isCIDR`: `<ip>/<prefix>` with a prefix in range for the family. */
export function parseCIDR(s: string): CelCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (netIsIP(ip.address) === 4 ? 32 : 128)) return undefined;
  return new CelCIDR(ip.address, prefix);
}

/** `isURL`: an absolute URI or an absolute path (Go `url.ParseRequestURI`). */
export function isRequestURI(s: string): boolean {
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    const u = new URL(s);
    return u.protocol.length > 1 && !/\s/.test(s);
  } catch {
    return false;
  }
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function maxLen(s: string, n: number): string[] {
  return s.length > n ? [`must be no more than ${n} characters`] : [];
}

function dns1123Subdomain(s: string): string[] {
  return [
    ...maxLen(s, 253),
    ...(DNS1123_SUBDOMAIN.test(s)
      ? []
      : [
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ]),
  ];
}

/** The named formats of the Kubernetes format library, with apimachinery's validation messages. */
export const NAMED_FORMATS: Readonly<Record<string, (s: string) => string[]>> = {
  dns1123Label: (s) => [
    ...maxLen(s, 63),
    ...(DNS1123_LABEL.test(s)
      ? []
      : [
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ]),
  ],
  dns1123Subdomain,
  dns1035Label: (s) => [
    ...maxLen(s, 63),
    ...(DNS1035_LABEL.test(s)
      ? []
      : [
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ]),
  ],
  labelValue: (s) => [
    ...maxLen(s, 63),
    ...(LABEL_VALUE.test(s)
      ? []
      : [
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ]),
  ],
  qualifiedName: (s) => {
    const parts = s.split('/');
    const name = parts.length === 2 ? (parts[1] ?? '') : s;
    const errs: string[] = [];
    if (parts.length > 2)
      return [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ];
    if (parts.length === 2) {
      const prefix = parts[0] ?? '';
      if (prefix === '') errs.push('prefix part must be non-empty');
      else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
    }
    if (name === '') errs.push('name part must be non-empty');
    else {
      errs.push(...maxLen(name, 63).map((m) => `name part ${m}`));
      if (!QUALIFIED_NAME_PART.test(name))
        errs.push(
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        );
    }
    return errs;
  },
  uuid: (s) => (UUID.test(s) ? [] : ['does not match the UUID format']),
};

function cmp(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = a as number | bigint;
  const y = b as number | bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

function registerNetwork(env: Environment): void {
  env
    .registerType('net.IP', CelIP)
    .registerType('net.CIDR', CelCIDR)
    .registerFunction('isIP(string): bool', (s: string) => parseIP(s) !== undefined)
    .registerFunction('ip(string): net.IP', (s: string) => {
      const ip = parseIP(s);
      if (!ip) throw new Error(`IP Address ${JSON.stringify(s)} parse error during conversion from string`);
      return ip;
    })
    .registerFunction({
      name: 'family',
      receiverType: 'net.IP',
      returnType: 'int',
      params: [],
      handler: (ip: CelIP) => BigInt(netIsIP(ip.address)),
    })
    .registerFunction('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined)
    .registerFunction('cidr(string): net.CIDR', (s: string) => {
      const c = parseCIDR(s);
      if (!c) throw new Error(`network address parse error during conversion from string: ${JSON.stringify(s)}`);
      return c;
    })
    .registerFunction({
      name: 'prefixLength',
      receiverType: 'net.CIDR',
      returnType: 'int',
      params: [],
      handler: (c: CelCIDR) => BigInt(c.prefix),
    })
    .registerFunction({
      name: 'ip',
      receiverType: 'net.CIDR',
      returnType: 'net.IP',
      params: [],
      handler: (c: CelCIDR) => new CelIP(c.address),
    })
    .registerFunction('isURL(string): bool', (s: string) => isRequestURI(s));
}

function registerFormats(env: Environment): void {
  env
    .registerType('kubernetes.Formats', CelFormats)
    .registerType('kubernetes.NamedFormat', CelNamedFormat)
    .registerConstant('format', 'kubernetes.Formats', new CelFormats());
  for (const [name, check] of Object.entries(NAMED_FORMATS)) {
    env.registerFunction({
      name,
      receiverType: 'kubernetes.Formats',
      returnType: 'kubernetes.NamedFormat',
      params: [],
      handler: () => new CelNamedFormat(check),
    });
  }
  env.registerFunction({
    name: 'validate',
    receiverType: 'kubernetes.NamedFormat',
    returnType: 'optional<list<string>>',
    params: [{ name: 'value', type: 'string' }],
    handler: (f: CelNamedFormat, s: string) => {
      const errs = f.check(s);
      return errs.length ? Optional.of(errs) : Optional.none();
    },
  });
}

function registerLists(env: Environment): void {
  env
    .registerFunction('matches(string, string): bool', (s: string, re: string) => new RegExp(re, 'u').test(s))
    .registerFunction({
      name: 'isSorted',
      receiverType: 'list',
      returnType: 'bool',
      params: [],
      handler: (l: unknown[]) => l.every((v, i) => i === 0 || cmp(l[i - 1], v) <= 0),
    })
    .registerFunction({
      name: 'sum',
      receiverType: 'list',
      returnType: 'dyn',
      params: [],
      handler: (l: unknown[]) =>
        l.reduce<number | bigint>(
          (a, v) => (typeof v === 'bigint' && typeof a === 'bigint' ? a + v : Number(a) + Number(v)),
          0n,
        ),
    })
    .registerFunction({
      name: 'min',
      receiverType: 'list',
      returnType: 'dyn',
      params: [],
      handler: (l: unknown[]) => {
        if (l.length === 0) throw new Error('min called on empty list');
        return l.reduce((a, v) => (cmp(v, a) < 0 ? v : a));
      },
    })
    .registerFunction({
      name: 'max',
      receiverType: 'list',
      returnType: 'dyn',
      params: [],
      handler: (l: unknown[]) => {
        if (l.length === 0) throw new Error('max called on empty list');
        return l.reduce((a, v) => (cmp(v, a) > 0 ? v : a));
      },
    })
    .registerFunction({
      name: 'indexOf',
      receiverType: 'list',
      returnType: 'int',
      params: [{ name: 'v', type: 'dyn' }],
      handler: (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => cmp(x, v) === 0)),
    })
    .registerFunction({
      name: 'lastIndexOf',
      receiverType: 'list',
      returnType: 'int',
      params: [{ name: 'v', type: 'dyn' }],
      handler: (l: unknown[], v: unknown) => {
        for (let i = l.length - 1; i >= 0; i--) if (cmp(l[i], v) === 0) return BigInt(i);
        return -1n;
      },
    });
}

let shared: Environment | undefined;

/** The CEL environment CRD rules are compiled in (built once; `self`/`oldSelf` are dynamic). */
export function celEnvironment(): Environment {
  if (shared) return shared;
  const env = new Environment({
    unlistedVariablesAreDyn: true,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: 10_000, maxDepth: 100, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 },
  });
  registerNetwork(env);
  registerFormats(env);
  registerLists(env);
  shared = env;
  return env;
}
