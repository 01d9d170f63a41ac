/**
 * A tiny Prometheus query endpoint for rehearsals: `GET /api/v1/query?query=…` over loopback, answering instant
 * queries over a fixed set of series with the Prometheus HTTP API's JSON. It understands what update-graph risks are
 * written in: `group(<selector>)`, `vector(<n>)`, `0 * <expr>`, `<expr> or <expr>` and parentheses, with label
 * matchers `=`, `!=`, `=~`, `!~` (a label that is absent has the value "", as in Prometheus).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One time series with its current value. */
export interface Series {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** A sample of a query result (the label set of a `group()` result is empty). */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** A query this evaluator does not understand (answered as Prometheus answers a `bad_data` error). */
export class PromQLParseError extends Error {
  readonly code = 'PROMQL_PARSE';
  constructor(
    message: string,
    readonly query: string,
  ) {
    super(`${message} in ${JSON.stringify(query)}`);
    this.name = 'PromQLParseError';
  }
}

type Matcher = { label: string; op: '=' | '!=' | '=~' | '!~'; value: string };

class Parser {
  private pos = 0;
  constructor(
    private readonly src: string,
    private readonly series: readonly Series[],
  ) {}

  parse(): Sample[] {
    const out = this.orExpr();
    this.ws();
    if (this.pos !== this.src.length)
      this.fail(`unexpected ${JSON.stringify(this.src.slice(this.pos, this.pos + 10))}`);
    return out;
  }

  private fail(msg: string): never {
    throw new PromQLParseError(msg, this.src);
  }

  private ws(): void {
    while (this.pos < this.src.length && /\s/.test(this.src.charAt(this.pos))) this.pos++;
  }

  private eat(token: string): boolean {
    this.ws();
    if (this.src.startsWith(token, this.pos)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  private expect(token: string): void {
    if (!this.eat(token)) this.fail(`expected ${JSON.stringify(token)} at ${this.pos}`);
  }

  private ident(): string {
    this.ws();
    const m = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(this.src.slice(this.pos));
    if (m === null) this.fail(`expected a name at ${this.pos}`);
    this.pos += m[0].length;
    return m[0];
  }

  private string(): string {
    this.ws();
    const m = /^"((?:[^"\\]|\\.)*)"/.exec(this.src.slice(this.pos));
    if (m === null) this.fail(`expected a quoted string at ${this.pos}`);
    this.pos += m[0].length;
    return JSON.parse(`"${m[1] ?? ''}"`) as string;
  }

  private orExpr(): Sample[] {
    let left = this.term();
    while (this.eat('or')) {
      const right = this.term();
      const seen = new Set(left.map((s) => JSON.stringify(s.labels)));
      left = [...left, ...right.filter((s) => !seen.has(JSON.stringify(s.labels)))];
    }
    return left;
  }

  private term(): Sample[] {
    this.ws();
    const num = /^\d+(\.\d+)?/.exec(this.src.slice(this.pos));
    if (num !== null) {
      this.pos += num[0].length;
      this.expect('*');
      const factor = Number(num[0]);
      return this.term().map((s) => ({ labels: s.labels, value: s.value * factor }));
    }
    if (this.eat('(')) {
      const inner = this.orExpr();
      this.expect(')');
      return inner;
    }
    const name = this.ident();
    if (name === 'group') {
      this.expect('(');
      const sel = this.selector();
      this.expect(')');
      return sel.length > 0 ? [{ labels: {}, value: 1 }] : [];
    }
    if (name === 'vector') {
      this.expect('(');
      this.ws();
      const m = /^-?\d+(\.\d+)?/.exec(this.src.slice(this.pos));
      if (m === null) this.fail('vector() needs a number');
      this.pos += m[0].length;
      this.expect(')');
      return [{ labels: {}, value: Number(m[0]) }];
    }
    this.pos -= name.length;
    return this.selector().map((s) => ({ labels: { __name__: s.name, ...s.labels }, value: s.value }));
  }

  private selector(): Series[] {
    const name = this.ident();
    const matchers: Matcher[] = [];
    if (this.eat('{')) {
      while (!this.eat('}')) {
        const label = this.ident();
        this.ws();
        const op = (['=~', '!~', '!=', '='] as const).find((o) => this.src.startsWith(o, this.pos));
        if (op === undefined) this.fail(`expected a label matcher operator at ${this.pos}`);
        this.pos += op.length;
        matchers.push({ label, op, value: this.string() });
        this.eat(',');
      }
    }
    return this.series.filter((s) => s.name === name && matchers.every((m) => matches(s, m)));
  }
}

function matches(s: Series, m: Matcher): boolean {
  const v = s.labels[m.label] ?? '';
  switch (m.op) {
    case '=':
      return v === m.value;
    case '!=':
      return v !== m.value;
    case '=~':
      return new RegExp(`^(?:${m.value})$`).test(v);
    case '!~':
      return !new RegExp(`^(?:${m.value})$`).test(v);
  }
}

/** Evaluates an instant query over `series`. */
export function evaluatePromQL(query: string, series: readonly Series[]): Sample[] {
  if (query.length > 4096) throw new PromQLParseError('query longer than 4096 characters', query.slice(0, 64));
  return new Parser(query, series).parse();
}

/** A running endpoint. */
export interface PromQLServer {
  url: string;
  /** Queries answered (successfully or not). */
  readonly queries: readonly string[];
  close(): Promise<void>;
}

/** Serves `GET /api/v1/query` over 127.0.0.1; `series()` is read on every query (the cluster's current facts). */
export async function startPromQLServer(series: () => readonly Series[]): Promise<PromQLServer> {
  const queries: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (url.pathname !== '/api/v1/query') {
      send(404, { status: 'error', errorType: 'not_found', error: `no route ${url.pathname}` });
      return;
    }
    const query = url.searchParams.get('query') ?? '';
    queries.push(query);
    const time = Number(url.searchParams.get('time') ?? Date.now() / 1000);
    try {
      const result = evaluatePromQL(query, series()).map((s) => ({ metric: s.labels, value: [time, String(s.value)] }));
      send(200, { status: 'success', data: { resultType: 'vector', result } });
    } catch (e) {
      send(400, { status: 'error', errorType: 'bad_data', error: (e as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
