/**
 * The APIServer TLS profile → (minimum version, IANA cipher names) as upstream's template controller computes it:
 * pkg/controller/common/helpers.go GetSecurityProfileCiphersFromAPIServer / GetSecurityProfileCiphers, with
 * openshift/api config/v1 TLSProfiles and library-go pkg/crypto OpenSSLToIANACipherSuites (unknown names dropped).
 */

interface ProfileSpec {
  ciphers: readonly string[];
  minTLSVersion: string;
}

const INTERMEDIATE: ProfileSpec = {
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
    'DHE-RSA-AES128-GCM-SHA256',
    'DHE-RSA-AES256-GCM-SHA384',
  ],
  minTLSVersion: 'VersionTLS12',
};

/** openshift/api config/v1 TLSProfiles (Old, Intermediate, Modern). */
export const TLS_PROFILES: Readonly<Record<string, ProfileSpec>> = {
  Old: {
    ciphers: [
      'TLS_AES_128_GCM_SHA256',
      'TLS_AES_256_GCM_SHA384',
      'TLS_CHACHA20_POLY1305_SHA256',
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305',
      'ECDHE-RSA-CHACHA20-POLY1305',
      'DHE-RSA-AES128-GCM-SHA256',
      'DHE-RSA-AES256-GCM-SHA384',
      'DHE-RSA-CHACHA20-POLY1305',
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-RSA-AES128-SHA256',
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA384',
      'ECDHE-RSA-AES256-SHA384',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-RSA-AES256-SHA',
      'DHE-RSA-AES128-SHA256',
      'DHE-RSA-AES256-SHA256',
      'AES128-GCM-SHA256',
      'AES256-GCM-SHA384',
      'AES128-SHA256',
      'AES256-SHA256',
      'AES128-SHA',
      'AES256-SHA',
      'DES-CBC3-SHA',
    ],
    minTLSVersion: 'VersionTLS10',
  },
  Intermediate: INTERMEDIATE,
  Modern: {
    ciphers: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'],
    minTLSVersion: 'VersionTLS13',
  },
};

/** library-go pkg/crypto openSSLToIANACiphersMap. */
export const OPENSSL_TO_IANA: ReadonlyMap<string, string> = new Map([
  ['TLS_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'],
  ['TLS_AES_256_GCM_SHA384', 'TLS_AES_256_GCM_SHA384'],
  ['TLS_CHACHA20_POLY1305_SHA256', 'TLS_CHACHA20_POLY1305_SHA256'],
  ['ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
  ['ECDHE-RSA-AES128-GCM-SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
  ['ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  ['ECDHE-RSA-AES256-GCM-SHA384', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
  ['ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
  ['ECDHE-RSA-CHACHA20-POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  ['ECDHE-ECDSA-AES128-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256'],
  ['ECDHE-RSA-AES128-SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256'],
  ['AES128-GCM-SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256'],
  ['AES256-GCM-SHA384', 'TLS_RSA_WITH_AES_256_GCM_SHA384'],
  ['AES128-SHA256', 'TLS_RSA_WITH_AES_128_CBC_SHA256'],
  ['ECDHE-ECDSA-AES128-SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA'],
  ['ECDHE-RSA-AES128-SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'],
  ['ECDHE-ECDSA-AES256-SHA', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA'],
  ['ECDHE-RSA-AES256-SHA', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA'],
  ['AES128-SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA'],
  ['AES256-SHA', 'TLS_RSA_WITH_AES_256_CBC_SHA'],
  ['DES-CBC3-SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA'],
]);

/** The `spec.tlsSecurityProfile` of an APIServer object (config.openshift.io/v1). */
export interface TLSSecurityProfile {
  type?: string;
  custom?: { ciphers?: string[]; minTLSVersion?: string } | null;
}

/** GetSecurityProfileCiphers: Intermediate when absent, Custom without a spec, or an unknown type. */
export function securityProfileCiphers(profile: TLSSecurityProfile | null | undefined): {
  minTLSVersion: string;
  cipherSuites: string[];
} {
  const type = profile ? (profile.type ?? '') : 'Intermediate';
  let spec: ProfileSpec | undefined;
  if (type === 'Custom') {
    if (profile?.custom)
      spec = { ciphers: profile.custom.ciphers ?? [], minTLSVersion: profile.custom.minTLSVersion ?? '' };
  } else spec = TLS_PROFILES[type];
  spec ??= INTERMEDIATE;
  const cipherSuites = spec.ciphers.flatMap((c) => {
    const iana = OPENSSL_TO_IANA.get(c);
    return iana === undefined ? [] : [iana];
  });
  return { minTLSVersion: spec.minTLSVersion, cipherSuites };
}
