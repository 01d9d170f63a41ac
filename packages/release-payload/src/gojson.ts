/**
 * Go's `encoding/json.Marshal` for `map[string]interface{}` trees (keys sorted by bytes, HTML-safe escapes): the CVO
 * keeps this form as the raw bytes of manifests read from YAML, so hashes match upstream. The encoder is
 * `@keelson/api`'s one Go-JSON encoder.
 */
import { goJsonMarshal as marshal } from '@keelson/api';

/** `json.Marshal` of a JSON-compatible value as Go writes a decoded `interface{}` (see `@keelson/api` `goJsonMarshal`). */
export function goJsonMarshal(value: unknown): string {
  return marshal(value);
}
