import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

type Labels = readonly string[];

function existing(registry: Registry, name: string): unknown {
  return registry.getSingleMetric(name);
}

/** Get or register a counter in `registry` (idempotent, so many components can share a registry). */
export function counter(registry: Registry, name: string, help: string, labelNames: Labels): Counter {
  return (
    (existing(registry, name) as Counter | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] })
  );
}

/** Get or register a gauge in `registry`. */
export function gauge(registry: Registry, name: string, help: string, labelNames: Labels): Gauge {
  return (
    (existing(registry, name) as Gauge | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] })
  );
}

/** Get or register a histogram (seconds buckets like client-go's workqueue metrics). */
export function histogram(registry: Registry, name: string, help: string, labelNames: Labels): Histogram {
  return (
    (existing(registry, name) as Histogram | undefined) ??
    new Histogram({
      name,
      help,
      labelNames,
      registers: [registry],
      buckets: [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10],
    })
  );
}
