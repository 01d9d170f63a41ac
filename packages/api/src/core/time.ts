/** A Kubernetes timestamp (RFC 3339, second precision, UTC) as the API server renders `metav1.Time`. */
export function kubeTime(d: Date = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
