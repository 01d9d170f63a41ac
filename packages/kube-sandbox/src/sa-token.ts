/**
 * ServiceAccount tokens as kube-apiserver issues and checks them: RS256-signed JWTs with the bound-token claims
 * (`iss`, `aud`, `exp`, `iat`, `nbf`, `jti`, `sub` = `system:serviceaccount:<ns>:<name>`, `kubernetes.io.namespace`,
 * `kubernetes.io.serviceaccount.{name,uid}`, and for a bound token `kubernetes.io.{pod,secret,node}.{name,uid}`),
 * minted by the TokenRequest subresource (`POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`, optionally
 * bound to a Pod, Secret or Node) and accepted only while the ServiceAccount — and the bound object — with that uid
 * still exist (a bound object being deleted keeps its tokens valid for 60 s, as upstream). Upstream: kubernetes `pkg/serviceaccount/jwt.go` (`JWTTokenGenerator`, `JWTTokenAuthenticator`),
 * `pkg/serviceaccount/claims.go` (`Claims`, `validator.Validate`), `pkg/registry/core/serviceaccount/storage/token.go`
 * (`TokenREST.Create`) and `pkg/apis/authentication/validation` (`ValidateTokenRequest`).
 */
import { createSign, createVerify, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { Cluster } from './cluster.js';
import { badRequest, conflict, invalid, notFound, type FieldError } from './errors.js';
import { serviceAccountUsername, type UserInfo } from './rbac.js';
import type { KubeObject, ResourceType } from './types.js';
import { isObject, nowTime } from './util.js';

/** The issuer (and default API audience) of kube-apiserver without `--service-account-issuer` overrides in a cluster. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc';
/** TokenRequest default and bounds (seconds). */
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** What a token names. */
interface TokenClaims {
  iss: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: ObjectRef;
    pod?: ObjectRef;
    secret?: ObjectRef;
    node?: ObjectRef;
  };
}

/** A name and uid, as the claims hold the ServiceAccount and the bound objects. */
interface ObjectRef {
  name: string;
  uid: string;
}

/** The object a bound token is tied to (claims `pod`, `secret` or `node`; a Pod's Node rides along). */
export interface BoundObject {
  kind: 'Pod' | 'Secret' | 'Node';
  name: string;
  uid: string;
  /** The Node a bound Pod runs on (upstream ServiceAccountTokenPodNodeInfo). */
  node?: ObjectRef;
}

/** How long a token bound to an object being deleted stays valid (upstream `invalidIfDeletedBefore`: 60 s). */
const DELETION_GRACE_MS = 60_000;

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** Outcome of checking a bearer token that looks like a JWT. */
export type TokenCheck = { user: UserInfo } | { error: string } | undefined;

/** Signs and checks the sandbox's ServiceAccount tokens (one key pair per sandbox, made when first needed). */
export class ServiceAccountTokens {
  private keys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;
  constructor(
    private readonly cluster: Cluster,
    readonly issuer = DEFAULT_ISSUER,
  ) {}

  private keyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
    this.keys ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
    return this.keys;
  }

  private saType(): ResourceType | undefined {
    return this.cluster.findType('', 'v1', 'serviceaccounts');
  }

  /** Mints a token for an existing ServiceAccount (404 when it does not exist). */
  mint(
    namespace: string,
    name: string,
    o: { audiences?: string[]; expirationSeconds?: number; bound?: BoundObject } = {},
  ): { token: string; expirationTimestamp: string; audiences: string[] } {
    const t = this.saType();
    const sa = t ? this.cluster.peek(t, namespace, name) : undefined;
    if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    const now = Math.floor(Date.now() / 1000);
    const exp = now + (o.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS);
    const audiences = o.audiences && o.audiences.length > 0 ? o.audiences : [this.issuer];
    const claims: TokenClaims = {
      aud: audiences,
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': { namespace, serviceaccount: { name, uid: sa.metadata?.uid ?? '' }, ...boundClaims(o.bound) },
      nbf: now,
      sub: serviceAccountUsername(namespace, name),
    };
    const signingInput = `${b64url(JSON.stringify({ alg: 'RS256', kid: 'keelson-sandbox' }))}.${b64url(JSON.stringify(claims))}`;
    const sig = createSign('RSA-SHA256').update(signingInput).sign(this.keyPair().privateKey);
    return { token: `${signingInput}.${b64url(sig)}`, expirationTimestamp: nowTime(exp * 1000), audiences };
  }

  /**
   * Checks a bearer token: undefined when it is not one of ours (not a JWT of this issuer), an error when it is ours
   * but invalid (expired, wrong audience, ServiceAccount gone or recreated), else the user.
   */
  check(token: string): TokenCheck {
    const parts = token.split('.');
    if (parts.length !== 3 || this.keys === undefined) return undefined;
    const [head = '', body = '', sig = ''] = parts;
    let claims: Partial<TokenClaims>;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<TokenClaims>;
    } catch {
      return undefined;
    }
    if (!isObject(claims) || claims.iss !== this.issuer) return undefined;
    if (!this.signatureValid(token, `${head}.${body}`, sig)) return { error: 'invalid signature' };
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || now > claims.exp) return { error: 'service account token has expired' };
    if (typeof claims.nbf === 'number' && now < claims.nbf) return { error: 'service account token is not valid yet' };
    if (!Array.isArray(claims.aud) || !claims.aud.includes(this.issuer))
      return { error: 'token audiences do not match the API server' };
    return this.userOf(claims);
  }

  /**
   * Tokens whose signature was verified: an RSA verification per request was a visible share of a large rehearsal's
   * CPU (kube-apiserver caches token authentication results too, pkg/authentication/token/cache). Only the signature
   * is remembered; expiry, audience and the ServiceAccount are checked on every request. Bounded (oldest out first).
   */
  private readonly verified = new Set<string>();

  private signatureValid(token: string, signed: string, sig: string): boolean {
    if (this.verified.has(token)) return true;
    const keys = this.keys;
    if (keys === undefined) return false;
    if (!createVerify('RSA-SHA256').update(signed).verify(keys.publicKey, Buffer.from(sig, 'base64url'))) return false;
    this.verified.add(token);
    if (this.verified.size > 1024) this.verified.delete(this.verified.values().next().value ?? '');
    return true;
  }

  private userOf(claims: Partial<TokenClaims>): TokenCheck {
    const k = claims['kubernetes.io'];
    const ns = k?.namespace ?? '';
    const name = k?.serviceaccount.name ?? '';
    const t = this.saType();
    const sa: KubeObject | undefined = t ? this.cluster.peek(t, ns, name) : undefined;
    if (!sa || sa.metadata?.deletionTimestamp) return { error: `service account ${ns}/${name} has been deleted` };
    if (sa.metadata?.uid !== k?.serviceaccount.uid)
      return {
        error: `service account UID (${k?.serviceaccount.uid ?? ''}) does not match claim (${sa.metadata?.uid ?? ''})`,
      };
    const boundError = this.checkBound(ns, k);
    if (boundError !== undefined) return { error: boundError };
    return {
      user: {
        name: serviceAccountUsername(ns, name),
        uid: sa.metadata?.uid ?? '',
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`],
        extra: { ...boundExtra(k), 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti ?? ''}`] },
      },
    };
  }

  /**
   * A bound token's objects must still exist with the claimed uid (upstream `validator.Validate`): the Pod or Secret
   * in the token's namespace, the Node of a Node-bound token (a Pod's Node is informational only).
   */
  private checkBound(ns: string, k: TokenClaims['kubernetes.io'] | undefined): string | undefined {
    const checks: [string, string, string | undefined, ObjectRef | undefined][] = [
      ['secret', 'secrets', ns, k?.secret],
      ['pod', 'pods', ns, k?.pod],
      ['node', 'nodes', undefined, k?.pod === undefined ? k?.node : undefined],
    ];
    for (const [claim, plural, namespace, ref] of checks) {
      if (ref === undefined) continue;
      const t = this.cluster.findType('', 'v1', plural);
      const live = t ? this.cluster.peek(t, namespace, ref.name) : undefined;
      const deleting = live?.metadata?.deletionTimestamp;
      if (!live || (deleting !== undefined && Date.parse(deleting) < Date.now() - DELETION_GRACE_MS))
        return 'service account token has been invalidated';
      if (live.metadata?.uid !== ref.uid)
        return `${claim} UID (${live.metadata?.uid ?? ''}) does not match service account ${claim} ref claim (${ref.uid})`;
    }
    return undefined;
  }

  /**
   * The object a TokenRequest binds its token to (upstream `TokenREST.Create`): a Pod (running as this
   * ServiceAccount) or Secret of the namespace, or a Node; 404 when it does not exist, 409 when `uid` names another
   * incarnation, 400 for any other kind.
   */
  private resolveBound(namespace: string, saName: string, ref: Record<string, unknown>): BoundObject {
    const kind = typeof ref['kind'] === 'string' ? ref['kind'] : '';
    const apiVersion = typeof ref['apiVersion'] === 'string' ? ref['apiVersion'] : '';
    const name = typeof ref['name'] === 'string' ? ref['name'] : '';
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    const plural = group === '' ? BOUND_KINDS[kind] : undefined;
    if (plural === undefined)
      throw badRequest(`cannot bind token to object of type ${group ?? ''}/${version ?? ''}, Kind=${kind}`);
    const t = this.cluster.findType('', 'v1', plural);
    const live = t ? this.cluster.peek(t, kind === 'Node' ? undefined : namespace, name) : undefined;
    if (!live) throw notFound({ group: '', resource: plural }, name);
    const spec = isObject(live['spec']) ? live['spec'] : {};
    if (kind === 'Pod' && spec['serviceAccountName'] !== saName)
      throw badRequest(
        `cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`,
      );
    const uid = live.metadata?.uid ?? '';
    if (typeof ref['uid'] === 'string' && ref['uid'] !== '' && ref['uid'] !== uid)
      throw conflict(
        { group: '', resource: kind },
        name,
        `the UID in the bound object reference (${ref['uid']}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    const bound: BoundObject = { kind: kind as BoundObject['kind'], name, uid };
    const nodeName = kind === 'Pod' && typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
    const nodes = nodeName !== '' ? this.cluster.findType('', 'v1', 'nodes') : undefined;
    const node = nodes ? this.cluster.peek(nodes, undefined, nodeName) : undefined;
    if (node) bound.node = { name: nodeName, uid: node.metadata?.uid ?? '' };
    return bound;
  }

  /** `POST serviceaccounts/<name>/token`: validates the TokenRequest and answers it with the token (201). */
  tokenRequest(namespace: string, name: string, body: unknown): { code: number; body: unknown } {
    const req = isObject(body) ? body : {};
    const meta = isObject(req['metadata']) ? req['metadata'] : {};
    // the names in the URL and the body must agree (TokenREST.Create)
    if (typeof meta['name'] === 'string' && meta['name'] !== '' && meta['name'] !== name)
      throw badRequest('name in URL does not match name in TokenRequest body');
    if (typeof meta['namespace'] === 'string' && meta['namespace'] !== '' && meta['namespace'] !== namespace)
      throw badRequest('namespace in URL does not match namespace in TokenRequest body');
    const spec = isObject(req['spec']) ? req['spec'] : {};
    const exp = spec['expirationSeconds'] === undefined ? DEFAULT_EXPIRATION_SECONDS : spec['expirationSeconds'];
    const errs: FieldError[] = [];
    if (typeof exp !== 'number' || !Number.isInteger(exp))
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: exp,
        detail: 'must be an integer',
      });
    else if (exp < MIN_EXPIRATION_SECONDS)
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: exp,
        detail: 'may not specify a duration less than 10 minutes',
      });
    else if (exp > MAX_EXPIRATION_SECONDS)
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: exp,
        detail: 'may not specify a duration larger than 2^32 seconds',
      });
    if (errs.length > 0) throw invalid('authentication.k8s.io', 'TokenRequest', name, errs);
    const audiences = Array.isArray(spec['audiences'])
      ? spec['audiences'].filter((a): a is string => typeof a === 'string')
      : [];
    const ref = isObject(spec['boundObjectRef']) ? spec['boundObjectRef'] : undefined;
    const bound = ref === undefined ? undefined : this.resolveBound(namespace, name, ref);
    const minted = this.mint(namespace, name, {
      audiences,
      expirationSeconds: exp as number,
      ...(bound !== undefined ? { bound } : {}),
    });
    return {
      code: 201,
      body: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name, namespace, creationTimestamp: null },
        spec: { audiences: minted.audiences, expirationSeconds: exp, boundObjectRef: ref ?? null },
        status: { token: minted.token, expirationTimestamp: minted.expirationTimestamp },
      },
    };
  }
}

/** The kinds a token can be bound to (core group, v1) and their resources. */
const BOUND_KINDS: Record<string, string | undefined> = { Pod: 'pods', Secret: 'secrets', Node: 'nodes' };

/** The claims of a bound object: `pod`/`secret`/`node` with name and uid (and the Pod's Node). */
function boundClaims(bound: BoundObject | undefined): Partial<TokenClaims['kubernetes.io']> {
  if (bound === undefined) return {};
  const ref = { name: bound.name, uid: bound.uid };
  if (bound.kind === 'Pod') return { pod: ref, ...(bound.node !== undefined ? { node: bound.node } : {}) };
  return bound.kind === 'Secret' ? { secret: ref } : { node: ref };
}

/** The user extras kube-apiserver derives from a bound token's claims (`authentication.kubernetes.io/pod-name`, …). */
function boundExtra(k: TokenClaims['kubernetes.io'] | undefined): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  if (k?.pod !== undefined) {
    extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
  }
  if (k?.node !== undefined) {
    extra['authentication.kubernetes.io/node-name'] = [k.node.name];
    extra['authentication.kubernetes.io/node-uid'] = [k.node.uid];
  }
  return extra;
}
