/** The Butane translators of coreos/butane (config/config.go) for the fcos and openshift variants. */
import type { SpecVersion } from '../spec/types.js';

/** What a Butane (variant, version) translates with. */
export interface ButaneProfile {
  variant: 'fcos' | 'openshift';
  /** Butane version as written in upstream's registry, e.g. `1.5.0` or `4.23.0-experimental`. */
  version: string;
  /** Ignition spec version of the output. */
  ignitionVersion: SpecVersion;
  /** Minor of the base schema (`base/v0_N`). */
  base: number;
  /** Minor of the fcos schema (`config/fcos/v1_N`); openshift embeds one. */
  fcos: number;
  /** Minor of the openshift schema (`config/openshift/v4_N`), 0 for fcos. */
  openshift: number;
  experimental: boolean;
}

const FCOS: [string, SpecVersion, number, number][] = [
  ['1.0.0', '3.0.0', 1, 0],
  ['1.1.0', '3.1.0', 2, 1],
  ['1.2.0', '3.2.0', 3, 2],
  ['1.3.0', '3.2.0', 3, 3],
  ['1.4.0', '3.3.0', 4, 4],
  ['1.5.0', '3.4.0', 5, 5],
  ['1.6.0', '3.5.0', 6, 6],
  ['1.7.0', '3.6.0', 7, 7],
  ['1.8.0-experimental', '3.7.0-experimental', 8, 8],
];

/** openshift minor -> embedded fcos minor (config/openshift/v4_N/schema.go). */
function openshiftFcos(minor: number): number {
  if (minor <= 13) return 3;
  if (minor <= 18) return 5;
  if (minor <= 22) return 6;
  return 8;
}

/** Every translator, in upstream's registration order. */
export const BUTANE_PROFILES: readonly ButaneProfile[] = [
  ...FCOS.map(([version, ignitionVersion, base, fcos]) => ({
    variant: 'fcos' as const,
    version,
    ignitionVersion,
    base,
    fcos,
    openshift: 0,
    experimental: version.endsWith('-experimental'),
  })),
  ...[8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23].map((minor) => {
    const fcos = openshiftFcos(minor);
    const f = FCOS.find((x) => x[3] === fcos);
    if (!f) throw new Error(`no fcos ${fcos}`);
    const experimental = minor === 23;
    return {
      variant: 'openshift' as const,
      version: `4.${minor}.0${experimental ? '-experimental' : ''}`,
      ignitionVersion: f[1],
      base: f[2],
      fcos,
      openshift: minor,
      experimental,
    };
  }),
];

/** Stable and experimental versions per variant, for documentation and the CLI's help. */
export function butaneVersions(variant: 'fcos' | 'openshift', experimental = false): string[] {
  return BUTANE_PROFILES.filter((p) => p.variant === variant && (experimental || !p.experimental)).map(
    (p) => p.version,
  );
}

/** The translator of a variant and canonical version string, if upstream has one. */
export function findProfile(variant: string, version: string): ButaneProfile | undefined {
  return BUTANE_PROFILES.find((p) => p.variant === variant && p.version === version);
}
