import { pathToFileURL } from 'node:url';
import { CRD_DIR } from '@keelson/api';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';

/**
 * A parsed response body: arbitrary JSON of many shapes (Status, lists, tables, objects) that each assertion
 * navigates freely; call sites give array elements a real type before calling methods on them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any shape inspected by assertions; the test lint config already allows member access on it
export type JsonBody = any;

/** A small fetch client bound to a sandbox. */
export interface Client {
  sb: Sandbox;
  req(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: JsonBody; headers: Headers }>;
}

export async function sandbox(opts: SandboxOptions = {}): Promise<Client> {
  const sb = await startSandbox(opts);
  return {
    sb,
    async req(method, path, body, contentType = 'application/json', headers = {}) {
      const init: RequestInit = { method, headers: { Authorization: `Bearer ${sb.token}`, ...headers } };
      if (body !== undefined) {
        (init.headers as Record<string, string>)['Content-Type'] = contentType;
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
      }
      const res = await fetch(`${sb.url}${path}`, init);
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

export const crdDir = pathToFileURL(CRD_DIR);
