/** Feeding controllers from shared informers with upstream's enqueue delays. */
import type { Controller, Informer, KubeObject } from '@keelson/kube';

/**
 * Subscribes `controller` to `informer`: every add/update/delete enqueues `mapper(obj)` after `delayMs`
 * (0 = at once). `onUpdate` may filter updates (return false to ignore). Returns the unsubscribe function.
 */
export function watchDelayed<T extends KubeObject>(
  controller: Controller,
  informer: Informer<T>,
  mapper: (obj: T) => string[],
  delayMs: number,
  onUpdate: (oldObj: T, newObj: T) => boolean = () => true,
): () => void {
  const enqueue = (o: T): void => {
    for (const k of mapper(o)) {
      if (delayMs > 0) controller.queue.addAfter(k, delayMs);
      else controller.queue.add(k);
    }
  };
  return informer.addHandlers({
    add: enqueue,
    update: (o, n) => {
      if (onUpdate(o, n)) {
        enqueue(o);
        enqueue(n);
      }
    },
    delete: enqueue,
  });
}
