/** Paged lists: the `continue` token (resourceVersion of the first page + last key) and the list document. */
import { badRequest, expired } from './errors.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';

const BAD_CONTINUE = 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';

/** The `continue` token resuming a list at resourceVersion `rv` after key `start`. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ rv, start })).toString('base64');
}

/** Decodes a `continue` token: 400 when malformed, 410 Expired when its resourceVersion was compacted away. */
export function decodeContinue(token: string, compactedRv: number): { rv: number; start: string } {
  let tok: { rv?: unknown; start?: unknown };
  try {
    tok = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { rv?: unknown; start?: unknown };
  } catch {
    throw badRequest(BAD_CONTINUE);
  }
  if (typeof tok.rv !== 'number' || typeof tok.start !== 'string') throw badRequest(BAD_CONTINUE);
  if (tok.rv < compactedRv)
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
  return { rv: tok.rv, start: tok.start };
}

/** The list document of a page, shaped (and key-ordered) as the real server answers built-in and custom kinds. */
export function listDocument(
  t: ResourceType,
  items: KubeObject[],
  listRv: number,
  cont: string | undefined,
  remaining: number,
): KubeObject {
  if (t.crd) {
    // an UnstructuredList: sorted keys, and `continue` always present (empty on the last page)
    const metadata: Record<string, unknown> = { continue: cont ?? '' };
    if (cont) metadata['remainingItemCount'] = remaining;
    metadata['resourceVersion'] = String(listRv);
    return { apiVersion: apiVersionOf(t.group, t.version), items, kind: t.listKind, metadata };
  }
  const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
  if (cont) {
    metadata['continue'] = cont;
    metadata['remainingItemCount'] = remaining;
  }
  return { kind: t.listKind, apiVersion: apiVersionOf(t.group, t.version), metadata, items };
}
