/**
 * Conditional-update risk evaluation, following the CVO's pkg/clusterconditions (registry, Always,
 * PromQL, cache) and pkg/cvo/availableupdates.go (risk conditions and the `Recommended` condition).
 */
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { RiskEvaluationError } from './errors.js';
import type { ClusterCondition, ConditionalUpdateRisk } from './graph.js';
import { createDispatcher, httpGet, HttpFailure } from './http.js';
import { compareSemver, parseSemver } from './semver.js';
import type { ConditionalUpdate, Release } from './updates.js';
import { at, must } from './util.js';

/** One condition type (`Always`, `PromQL`, ...). */
export interface ConditionType {
  /** Returns an error message when the rule is not valid for this type, else undefined. */
  valid(rule: ClusterCondition): string | undefined;
  /** Evaluates the rule: true = the cluster is exposed. Throws on evaluation failure. */
  match(rule: ClusterCondition, signal?: AbortSignal): Promise<boolean>;
}

/** Joins error messages like k8s `utilerrors.NewAggregate` (one: itself; several: `[a, b]`). */
export function aggregateMessages(msgs: readonly string[]): string | undefined {
  const uniq = [...new Set(msgs)];
  if (uniq.length === 0) return undefined;
  if (uniq.length === 1) return uniq[0];
  return `[${uniq.join(', ')}]`;
}

/** A registry of condition types (the CVO's ConditionRegistry). */
export class ConditionRegistry {
  private readonly types = new Map<string, ConditionType>();

  /** Registers a type; registering a different implementation twice throws. */
  register(type: string, impl: ConditionType): this {
    const existing = this.types.get(type);
    if (existing && existing !== impl)
      throw new RiskEvaluationError(`cluster condition ${JSON.stringify(type)} already registered`);
    this.types.set(type, impl);
    return this;
  }

  /** Keeps recognised, valid rules; returns the aggregated pruning errors. */
  pruneInvalid(rules: readonly ClusterCondition[]): { valid: ClusterCondition[]; errors: string | undefined } {
    const valid: ClusterCondition[] = [];
    const errs: string[] = [];
    for (const rule of rules) {
      const impl = this.types.get(rule.type);
      if (!impl) {
        errs.push(`skipping unrecognized cluster condition type ${JSON.stringify(rule.type)}`);
        continue;
      }
      const e = impl.valid(rule);
      if (e !== undefined) {
        errs.push(e);
        continue;
      }
      valid.push(rule);
    }
    return { valid, errors: aggregateMessages(errs) };
  }

  /** Evaluates rules in order; the first that evaluates without error decides. All failing → throws. No rules → false. */
  async match(rules: readonly ClusterCondition[], signal?: AbortSignal): Promise<boolean> {
    const errs: string[] = [];
    for (const rule of rules) {
      const impl = this.types.get(rule.type);
      if (!impl) continue;
      try {
        return await impl.match(rule, signal);
      } catch (err) {
        errs.push(err instanceof Error ? err.message : String(err));
      }
    }
    const msg = aggregateMessages(errs);
    if (msg !== undefined) throw new RiskEvaluationError(msg);
    return false;
  }
}

/** `type: Always`: always matches; must not carry `promql`. */
export const alwaysCondition: ConditionType = {
  valid: (rule) =>
    rule.promql !== undefined ? "the 'promql' property is not valid for 'type: Always' conditions" : undefined,
  match: () => Promise.resolve(true),
};

/** Validation of `type: PromQL` rules (shared by the evaluating and the validate-only implementations). */
export function validatePromQLRule(rule: ClusterCondition): string | undefined {
  if (rule.promql === undefined) return "the 'promql' property is required for 'type: PromQL' conditions";
  if (rule.promql.promql === '')
    return "the 'promql.promql' query string must be non-empty for 'type: PromQL' conditions";
  return undefined;
}

/** A registry that validates Always and PromQL but cannot evaluate PromQL (used for pruning). */
export function defaultConditionRegistry(): ConditionRegistry {
  return new ConditionRegistry().register('Always', alwaysCondition).register('PromQL', {
    valid: validatePromQLRule,
    match: () => Promise.reject(new RiskEvaluationError('no PromQL endpoint configured')),
  });
}

/** Where and how to query Prometheus / Thanos. */
export interface PromQLOptions {
  /** Base URL, e.g. `https://thanos-querier.openshift-monitoring.svc:9091`. */
  readonly url: string;
  /** Bearer token (or read from `tokenFile`). */
  readonly token?: string;
  /** File holding the bearer token (re-read on each query, like the CVO's credentials file). */
  readonly tokenFile?: string;
  /** PEM CA bundle. */
  readonly ca?: string | Buffer;
  /**
   * File holding the PEM CA bundle (the CVO's `--metrics-ca-bundle-file`, the service CA), read for each query as
   * upstream builds its round-tripper per evaluation; a service-CA rotation is picked up without a restart.
   */
  readonly caFile?: string;
  /**
   * Where to connect instead of the URL's host, looked up for each query (upstream `PromQL.Host`: the Service's
   * ClusterIP unless `--use-dns-for-services`), as `host:port`. The TLS server name stays the URL's host name.
   */
  readonly resolveHost?: (signal?: AbortSignal) => Promise<string>;
  /** Query timeout in ms (CVO: 5 minutes). */
  readonly timeoutMs?: number;
  /** Max response size (default 4 MiB). */
  readonly maxBytes?: number;
  /** Clock for the `time` parameter (ms since epoch). */
  readonly now?: () => number;
}

/**
 * `type: PromQL`: an instant query `GET {url}/api/v1/query?query=…&time=…` (the CVO short-circuits POST);
 * the result must be a vector of exactly one sample whose value is 0 (no match) or 1 (match).
 */
export class PromQLCondition implements ConditionType {
  private readonly opts: PromQLOptions;
  private dispatcher: { key: string; d: Dispatcher } | undefined;
  constructor(opts: PromQLOptions) {
    this.opts = opts;
  }

  /** The dispatcher for this query's CA and TLS server name (rebuilt when the CA file's content changes). */
  private dispatcherFor(ca: string | Buffer | undefined, servername: string | undefined): Dispatcher {
    const key = `${servername ?? ''}\n${ca === undefined ? '' : ca.toString()}`;
    if (this.dispatcher?.key === key) return this.dispatcher.d;
    const old = this.dispatcher?.d;
    if (old) void old.close().catch(() => undefined);
    const d = createDispatcher({
      ...(ca !== undefined ? { ca } : {}),
      ...(servername !== undefined ? { servername } : {}),
    });
    this.dispatcher = { key, d };
    return d;
  }

  /** The URL to query and the TLS server name (upstream `PromQL.Match`: host looked up every attempt). */
  private async target(signal?: AbortSignal): Promise<{ url: URL; servername: string | undefined }> {
    const url = new URL('api/v1/query', this.opts.url.endsWith('/') ? this.opts.url : `${this.opts.url}/`);
    if (this.opts.resolveHost === undefined) return { url, servername: undefined };
    let host: string;
    try {
      host = await this.opts.resolveHost(signal);
    } catch (err) {
      throw new RiskEvaluationError(`failure determine thanos IP: ${(err as Error).message}`, { cause: err });
    }
    const servername = url.hostname.replace(/^\[|\]$/g, '');
    url.host = host;
    return { url, servername };
  }

  private readCa(): string | Buffer | undefined {
    if (this.opts.caFile === undefined) return this.opts.ca;
    try {
      return readFileSync(this.opts.caFile);
    } catch (err) {
      throw new RiskEvaluationError(
        `creating PromQL round-tripper: unable to load specified CA cert ${this.opts.caFile}: ${(err as Error).message}`,
      );
    }
  }

  valid(rule: ClusterCondition): string | undefined {
    return validatePromQLRule(rule);
  }

  async match(rule: ClusterCondition, signal?: AbortSignal): Promise<boolean> {
    const query = rule.promql?.promql ?? '';
    const { url, servername } = await this.target(signal);
    const dispatcher = this.dispatcherFor(this.readCa(), servername);
    url.searchParams.set('query', query);
    url.searchParams.set('time', ((this.opts.now ?? Date.now)() / 1000).toFixed(3));
    const headers: Record<string, string> = { accept: 'application/json' };
    let token = this.opts.token;
    if (token === undefined && this.opts.tokenFile !== undefined) {
      try {
        token = readFileSync(this.opts.tokenFile, 'utf8').trim();
      } catch (err) {
        throw new RiskEvaluationError(
          `executing PromQL query: reading bearer token file ${this.opts.tokenFile}: ${(err as Error).message}`,
        );
      }
    }
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    let res;
    try {
      res = await httpGet(url, {
        dispatcher,
        headers,
        timeoutMs: this.opts.timeoutMs ?? 300_000,
        maxBytes: this.opts.maxBytes ?? 4 << 20,
        signal,
        readBodyOnError: true,
      });
    } catch (err) {
      throw new RiskEvaluationError(
        `executing PromQL query: ${err instanceof HttpFailure ? err.message : String(err)}`,
        { cause: err },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new RiskEvaluationError(
        `executing PromQL query: client_error: server returned HTTP status ${res.statusLine} with a non-JSON body`,
      );
    }
    const b = body as {
      status?: unknown;
      errorType?: unknown;
      error?: unknown;
      data?: { resultType?: unknown; result?: unknown };
    };
    if (b.status !== 'success') {
      const t = typeof b.errorType === 'string' ? b.errorType : 'server_error';
      const e = typeof b.error === 'string' ? b.error : `server returned HTTP status ${res.statusLine}`;
      throw new RiskEvaluationError(`executing PromQL query: ${t}: ${e}`);
    }
    const type = b.data?.resultType;
    if (type !== 'vector') throw new RiskEvaluationError(`invalid PromQL result type is ${String(type)}, not vector`);
    const result = b.data?.result;
    if (!Array.isArray(result))
      throw new RiskEvaluationError('invalid PromQL result type is nominally vector, but fails Vector cast');
    if (result.length !== 1)
      throw new RiskEvaluationError(`invalid PromQL result length must be one, but is ${result.length}`);
    const sample = result[0] as { value?: unknown };
    const raw = Array.isArray(sample.value) ? (sample.value[1] as unknown) : undefined;
    const value = typeof raw === 'string' ? Number(raw === 'NaN' ? Number.NaN : raw) : Number.NaN;
    if (value === 0) return false;
    if (value === 1) return true;
    throw new RiskEvaluationError(
      `invalid PromQL result (must be 0 or 1): ${typeof raw === 'string' ? raw : String(raw)}`,
    );
  }
}

interface CacheEntry {
  when: number; // 0 = never evaluated
  access: number;
  match: boolean;
  error: Error | undefined;
}

/** Throttling settings of {@link CachedCondition} (CVO defaults for PromQL: 1 s, 1 h, 24 h). */
export interface CacheOptions {
  /** Minimum time between two evaluations of any query (ms); negative disables throttling. */
  readonly minBetweenMatchesMs?: number;
  /** Minimum time before the same query is re-evaluated (ms). */
  readonly minForConditionMs?: number;
  /** Entries older than this are forgotten (ms). */
  readonly expirationMs?: number;
  /** Clock (ms since epoch); injectable for tests. */
  readonly now?: () => number;
}

function hhmmss(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}

/**
 * The CVO's cluster-condition cache: at most one wrapped evaluation per `minBetweenMatches`, each allowed
 * evaluation spent on the most stale queued query, results reused for `minForCondition`, expiry after
 * `expiration`. A throttled, never-evaluated query fails with `evaluation is throttled until <time>`.
 */
export class CachedCondition implements ConditionType {
  private readonly inner: ConditionType;
  private readonly minBetween: number;
  private readonly minFor: number;
  private readonly expiration: number;
  private readonly now: () => number;
  private lastMatch = 0;
  private readonly results = new Map<string, CacheEntry>();

  constructor(inner: ConditionType, opts: CacheOptions = {}) {
    this.inner = inner;
    this.minBetween = opts.minBetweenMatchesMs ?? 1000;
    this.minFor = opts.minForConditionMs ?? 3_600_000;
    this.expiration = opts.expirationMs ?? 86_400_000;
    this.now = opts.now ?? Date.now;
  }

  valid(rule: ClusterCondition): string | undefined {
    return this.inner.valid(rule);
  }

  /** Number of cached entries (evaluated or queued). */
  get size(): number {
    return this.results.size;
  }

  async match(rule: ClusterCondition, signal?: AbortSignal): Promise<boolean> {
    const key = JSON.stringify(
      rule.promql === undefined ? { type: rule.type } : { type: rule.type, promql: { promql: rule.promql.promql } },
    );
    const now = this.now();
    const touch = (): void => {
      const r = this.results.get(key);
      if (r) r.access = now;
      else this.results.set(key, { when: 0, access: now, match: false, error: undefined });
    };
    try {
      for (const [k, v] of this.results) {
        const age = v.when === 0 ? now - v.access : now - v.when;
        if (age > this.expiration) this.results.delete(k);
      }
      if (now - this.lastMatch <= this.minBetween) {
        const r = this.results.get(key);
        if (r && r.when !== 0) return settle(r);
        throw new RiskEvaluationError(`evaluation is throttled until ${hhmmss(this.lastMatch + this.minBetween)}`);
      }
      let thiefKey: string | undefined;
      let thief: CacheEntry | undefined;
      for (const [k, v] of this.results) {
        if (!(v.access > v.when)) continue;
        if (!thief || v.when < thief.when || (v.when === thief.when && v.access < thief.access)) {
          thiefKey = k;
          thief = v;
        }
      }
      let targetKey = key;
      let target: ClusterCondition = rule;
      if (thiefKey !== undefined && thief && now - thief.when >= this.minFor) {
        targetKey = thiefKey;
        target = JSON.parse(thiefKey) as ClusterCondition;
      } else if (thiefKey !== undefined) {
        const r = this.results.get(key);
        if (r && r.when !== 0) return settle(r);
      }
      let match = false;
      let error: Error | undefined;
      try {
        match = await this.inner.match(target, signal);
      } catch (err) {
        error = err instanceof Error ? err : new Error(String(err));
      }
      const done = this.now();
      this.lastMatch = done;
      let entry = this.results.get(targetKey);
      if (!entry) this.results.set(targetKey, (entry = { when: 0, access: 0, match: false, error: undefined }));
      entry.when = done;
      entry.match = match;
      entry.error = error;
      const mine = this.results.get(key);
      if (mine && mine.when !== 0) return settle(mine);
      throw new RiskEvaluationError('evaluation is throttled');
    } finally {
      touch();
    }
  }
}

function settle(r: CacheEntry): boolean {
  if (r.error) throw r.error;
  return r.match;
}

/** A Kubernetes-style condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** A conditional update with its `Recommended` condition. */
export interface EvaluatedConditionalUpdate extends ConditionalUpdate {
  conditions: Condition[];
}

/** Result of {@link evaluateConditionalUpdates}. */
export interface RiskEvaluationResult {
  /** `updates` plus the conditional updates that are Recommended=True (minus the others). */
  updates: Release[];
  /** Conditional updates with their `Recommended` condition. */
  conditionalUpdates: EvaluatedConditionalUpdate[];
  /** Per risk name, its `Applies` condition. */
  riskConditions: Record<string, Condition>;
  /** Risk names in evaluation order (highest target version first, then name). */
  riskOrder: string[];
}

/** Options of {@link evaluateConditionalUpdates}. */
export interface EvaluateOptions {
  /** Registry with evaluating implementations (e.g. `Always` + cached `PromQL`). */
  readonly registry: ConditionRegistry;
  /** Risk names accepted by the admin (`spec.desiredUpdate.acceptRisks`). */
  readonly acceptRisks?: Iterable<string>;
  /** Recommended updates to amend. */
  readonly updates?: readonly Release[];
  /** Cluster ID injected into PromQL `_id=""` matchers, like the CVO. */
  readonly clusterId?: string;
  readonly signal?: AbortSignal;
}

const REASON_RE = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

function newStatus(now: Condition['status'], want: Condition['status']): Condition['status'] {
  if (now === 'False' || want === 'False') return 'False';
  if (now === 'Unknown' || want === 'Unknown') return 'Unknown';
  return want;
}

function newReason(now: string, want: string): string {
  if (
    now === 'NotExposedToRisks' ||
    (now === 'AllExposedRisksAccepted' && want !== 'NotExposedToRisks') ||
    (now === 'EvaluationFailed' && want === 'ExposedToRisks') ||
    now === want
  )
    return want;
  if (
    want === 'NotExposedToRisks' ||
    (now === 'EvaluationFailed' && want === 'AllExposedRisksAccepted') ||
    (now === 'ExposedToRisks' && (want === 'AllExposedRisksAccepted' || want === 'EvaluationFailed'))
  )
    return now;
  return 'MultipleReasons';
}

/** Computes the `Recommended` condition of one conditional update from the risk conditions. */
export function recommendedCondition(
  cu: ConditionalUpdate,
  riskConditions: Readonly<Record<string, Condition>>,
  acceptRisks: ReadonlySet<string>,
): Condition {
  const rec: Condition = {
    type: 'Recommended',
    status: 'True',
    reason: 'NotExposedToRisks',
    message: 'The update is recommended, because none of the conditional update risks apply to this cluster.',
  };
  const msgs: string[] = [];
  for (const risk of cu.risks) {
    const rc = riskConditions[risk.name] ?? {
      type: 'Applies',
      status: 'Unknown',
      reason: 'InternalErrorFoundNoRiskCondition',
      message: `failed to find risk condition for risk ${risk.name}`,
    };
    if (rc.status === 'Unknown') {
      rec.status = newStatus(rec.status, 'Unknown');
      rec.reason = newReason(rec.reason, 'EvaluationFailed');
      msgs.push(rc.message);
    } else if (rc.status === 'True') {
      if (acceptRisks.has(risk.name)) {
        rec.status = newStatus(rec.status, 'True');
        rec.reason = newReason(rec.reason, 'AllExposedRisksAccepted');
        rec.message =
          'The update is recommended, because either risk does not apply to this cluster or it is accepted by cluster admins.';
      } else {
        rec.status = newStatus(rec.status, 'False');
        rec.reason = newReason(rec.reason, REASON_RE.test(risk.name) ? risk.name : 'ExposedToRisks');
        msgs.push(`${risk.message} ${risk.url}`);
      }
    }
  }
  if (msgs.length > 0) rec.message = msgs.join('\n\n');
  return rec;
}

/**
 * Evaluates every risk once (the definition from the highest target version wins), then derives each
 * conditional update's `Recommended` condition; Recommended=True targets are added to `updates`,
 * the others removed from it.
 */
export async function evaluateConditionalUpdates(
  conditionalUpdates: readonly ConditionalUpdate[],
  opts: EvaluateOptions,
): Promise<RiskEvaluationResult> {
  const accept = new Set(opts.acceptRisks ?? []);
  const withId = conditionalUpdates.map((cu) => ({
    release: cu.release,
    risks: cu.risks.map((r) => ({
      ...r,
      matchingRules: r.matchingRules.map((m) =>
        m.type === 'PromQL' && m.promql && opts.clusterId !== undefined
          ? { ...m, promql: { promql: m.promql.promql.split('_id=""').join(`_id="${opts.clusterId}"`) } }
          : m,
      ),
    })),
  }));
  const riskVersions = new Map<string, { version: ReturnType<typeof parseSemver>; risk: ConditionalUpdateRisk }>();
  for (const cu of withId) {
    const v = parseSemver(cu.release.version);
    for (const risk of cu.risks) {
      const cur = riskVersions.get(risk.name);
      if (!cur || compareSemver(v, cur.version) > 0) riskVersions.set(risk.name, { version: v, risk });
    }
  }
  const order = [...riskVersions.values()]
    .sort(
      (a, b) =>
        -compareSemver(a.version, b.version) || (a.risk.name < b.risk.name ? -1 : a.risk.name > b.risk.name ? 1 : 0),
    )
    .map((x) => x.risk.name);
  const riskConditions: Record<string, Condition> = {};
  for (const name of order) {
    const risk = must(riskVersions.get(name), 'riskVersions entry').risk;
    try {
      const match = await opts.registry.match(risk.matchingRules, opts.signal);
      riskConditions[name] = match
        ? { type: 'Applies', status: 'True', reason: 'Match', message: '' }
        : { type: 'Applies', status: 'False', reason: 'NotMatch', message: '' };
    } catch (err) {
      const e = err instanceof Error ? err.message : String(err);
      riskConditions[name] = {
        type: 'Applies',
        status: 'Unknown',
        reason: 'EvaluationFailed',
        message: `Could not evaluate exposure to update risk ${name} (${e})\n  ${name} description: ${risk.message}\n  ${name} URL: ${risk.url}`,
      };
    }
  }
  const updates = [...(opts.updates ?? [])];
  const evaluated: EvaluatedConditionalUpdate[] = [];
  for (const cu of withId) {
    const cond = recommendedCondition(cu, riskConditions, accept);
    if (cond.status === 'True') {
      if (!updates.some((u) => u.image === cu.release.image)) updates.push(cu.release);
    } else {
      for (let i = updates.length - 1; i >= 0; i--) if (at(updates, i).image === cu.release.image) updates.splice(i, 1);
    }
    evaluated.push({ release: cu.release, risks: cu.risks, conditions: [cond] });
  }
  return { updates, conditionalUpdates: evaluated, riskConditions, riskOrder: order };
}

/**
 * A registry with `Always` and a cached `PromQL` evaluator (CVO defaults: 1 s between evaluations,
 * 1 h per query, 24 h expiry).
 */
export function createRiskRegistry(promql?: PromQLOptions, cache?: CacheOptions): ConditionRegistry {
  const reg = new ConditionRegistry().register('Always', alwaysCondition);
  if (promql) reg.register('PromQL', new CachedCondition(new PromQLCondition(promql), cache));
  else
    reg.register('PromQL', {
      valid: validatePromQLRule,
      match: () => Promise.reject(new RiskEvaluationError('no PromQL endpoint configured')),
    });
  return reg;
}

/** Options of {@link evaluateUntilSettled}. */
export interface SettleOptions extends EvaluateOptions {
  /** Delay between attempts (the CVO requeues after 1 s). */
  readonly retryDelayMs?: number;
  /** Give up after this many attempts (the last result is returned). */
  readonly maxAttempts?: number;
  /** Sleep function (injectable for tests). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Like the CVO's available-updates sync: evaluates, and while some risk is Unknown only because the
 * cache throttled it (`evaluation is throttled…`), waits `retryDelayMs` and evaluates again.
 */
export async function evaluateUntilSettled(
  conditionalUpdates: readonly ConditionalUpdate[],
  opts: SettleOptions,
): Promise<RiskEvaluationResult & { attempts: number }> {
  const delay = opts.retryDelayMs ?? 1000;
  const max = opts.maxAttempts ?? 30;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let attempts = 0;
  for (;;) {
    attempts++;
    const res = await evaluateConditionalUpdates(conditionalUpdates, opts);
    const throttled = Object.values(res.riskConditions).some(
      (c) => c.status === 'Unknown' && c.message.includes('(evaluation is throttled'),
    );
    if (!throttled || attempts >= max) return { ...res, attempts };
    await sleep(delay);
  }
}
