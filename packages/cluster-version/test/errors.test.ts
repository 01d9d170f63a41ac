/** API errors classified into update reasons (upstream pkg/payload/task.go). */
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '@keelson/kube';
import { classifyApiError } from '../src/errors.js';

describe('API error classification', () => {
  const cases: [number, string | undefined, string][] = [
    [404, 'NotFound', 'UpdatePayloadResourceNotFound'],
    [409, 'Conflict', 'UpdatePayloadResourceConflict'],
    [409, 'AlreadyExists', 'UpdatePayloadResourceNotFound'],
    [500, 'InternalError', 'UpdatePayloadClusterError'],
    [503, 'ServiceUnavailable', 'UpdatePayloadClusterDown'],
    [422, 'Invalid', 'UpdatePayloadResourceInvalid'],
    [401, 'Unauthorized', 'UpdatePayloadClusterUnauthorized'],
    [403, 'Forbidden', 'UpdatePayloadResourceForbidden'],
    [429, 'TooManyRequests', 'UpdatePayloadClusterOverloaded'],
  ];
  for (const [status, reason, want] of cases) {
    it(`${status} ${reason ?? ''} -> ${want}`, () => {
      expect(classifyApiError(new KubeApiError('GET', '/x', status, reason ? { reason } : undefined)).reason).toBe(
        want,
      );
    });
  }
});
