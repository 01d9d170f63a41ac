import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

type Labels = readonly string[];

function existing<M>(registry: Registry, name: string): M | undefined {
  return registry.getSingleMetric(name) as M | undefined;
}

/** Get or register a counter in `registry` (idempotent, so many components can share a registry). */
export function counter(registry: Registry, name: string, help: string, labelNames: Labels): Counter<string> {
  return existing<Counter<string>>(registry, name) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

/** Get or register a gauge in `registry`. */
export function gauge(registry: Registry, name: string, help: string, labelNames: Labels): Gauge<string> {
  return existing<Gauge<string>>(registry, name) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

/** Get or register a histogram (seconds buckets like client-go's workqueue metrics). */
export function histogram(registry: Registry, name: string, help: string, labelNames: Labels): Histogram<string> {
  return (
    existing<Histogram<string>>(registry, name) ??
    new Histogram({ name, help, labelNames, registers: [registry], buckets: [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10] })
  );
}
