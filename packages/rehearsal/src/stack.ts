/** What a rehearsal started, stopped in reverse order at its end. */

/** How long one component may take to stop before the rehearsal goes on without it (wall time). */
export const COMPONENT_STOP_TIMEOUT_MS = 30_000;

/**
 * Everything started, to be stopped in reverse order. A component that does not stop within
 * {@link COMPONENT_STOP_TIMEOUT_MS} is named on stderr and left behind, so a stuck component cannot keep the rehearsal
 * (and its report) from ending.
 */
export class Stack {
  private readonly items: { name: string; stop: () => Promise<void> }[] = [];
  push(name: string, stop: () => Promise<void>): void {
    this.items.push({ name, stop });
  }
  async stopAll(timeoutMs = COMPONENT_STOP_TIMEOUT_MS): Promise<void> {
    for (const it of this.items.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => {
          resolve('late');
        }, timeoutMs);
      });
      const done = it.stop().then(
        () => 'stopped' as const,
        () => 'stopped' as const, // keep stopping the rest
      );
      const outcome = await Promise.race([done, late]);
      clearTimeout(timer);
      if (outcome === 'late')
        process.stderr.write(
          `keelson rehearse: ${it.name} did not stop within ${timeoutMs / 1000}s; going on without it\n`,
        );
    }
  }
}
