/**
 * A small in-process OCI distribution endpoint (read side of the distribution spec) over loopback HTTP:
 * `GET /v2/`, `GET|HEAD /v2/<name>/manifests/<tag|digest>`, `GET|HEAD /v2/<name>/blobs/<digest>`, with
 * `Docker-Content-Digest` and the spec's JSON error bodies. Images are pushed in-process with {@link OciRegistry.put}.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OciImage } from './oci-image.js';

/** A running registry. */
export interface OciRegistry {
  /** `127.0.0.1:<port>`: the registry host of pull specs. */
  host: string;
  /** Stores `image` in `repository` under `tag`; returns the pull spec by digest (`host/repository@sha256:…`). */
  put(repository: string, tag: string, image: OciImage): string;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const NAME_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ errors: [{ code, message, detail: null }] });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'docker-distribution-api-version': 'registry/2.0',
  });
  res.end(body);
}

/** Starts the registry on 127.0.0.1 (`port` 0 = any free port). */
export async function startOciRegistry(port = 0): Promise<OciRegistry> {
  const repos = new Map<
    string,
    { tags: Map<string, string>; manifests: Map<string, Uint8Array>; blobs: Map<string, Uint8Array> }
  >();
  let requests = 0;
  let host = '';

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    requests++;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      fail(res, 405, 'UNSUPPORTED', 'this registry is read-only over HTTP');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v2/' || path === '/v2') {
      res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' });
      res.end(req.method === 'HEAD' ? undefined : '{}');
      return;
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(path);
    if (m === null) {
      fail(res, 404, 'NOT_FOUND', `no route for ${path}`);
      return;
    }
    const [, name = '', kind, reference = ''] = m;
    const repo = NAME_RE.test(name) ? repos.get(name) : undefined;
    if (repo === undefined) {
      fail(res, 404, 'NAME_UNKNOWN', `repository name not known to registry: ${name}`);
      return;
    }
    let digest = reference;
    let body: Uint8Array | undefined;
    let type = 'application/octet-stream';
    if (kind === 'manifests') {
      if (!reference.startsWith('sha256:')) digest = TAG_RE.test(reference) ? (repo.tags.get(reference) ?? '') : '';
      body = repo.manifests.get(digest);
      type = 'application/vnd.oci.image.manifest.v1+json';
      if (body === undefined) {
        fail(res, 404, 'MANIFEST_UNKNOWN', `manifest unknown: ${reference}`);
        return;
      }
    } else {
      body = repo.blobs.get(digest);
      if (body === undefined) {
        fail(res, 404, 'BLOB_UNKNOWN', `blob unknown to registry: ${reference}`);
        return;
      }
    }
    res.writeHead(200, {
      'content-type': type,
      'content-length': body.length,
      'docker-content-digest': digest,
      'docker-distribution-api-version': 'registry/2.0',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    put(repository, tag, image) {
      if (!NAME_RE.test(repository))
        throw new TypeError(`registry: invalid repository name ${JSON.stringify(repository)}`);
      if (!TAG_RE.test(tag)) throw new TypeError(`registry: invalid tag ${JSON.stringify(tag)}`);
      const repo = repos.get(repository) ?? {
        tags: new Map<string, string>(),
        manifests: new Map<string, Uint8Array>(),
        blobs: new Map<string, Uint8Array>(),
      };
      repos.set(repository, repo);
      for (const [d, b] of image.blobs) repo.blobs.set(d, b);
      repo.manifests.set(image.digest, image.manifest);
      repo.tags.set(tag, image.digest);
      return `${host}/${repository}@${image.digest}`;
    },
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
