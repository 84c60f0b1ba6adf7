// Signals sparehand receives during a run on a worker. Each stage says what one means for it (stop the sync,
// pass it to the remote command); the run then ends with 128+N. Without a reaction, a signal is only recorded:
// the stage in progress (applying files back) finishes, and the run ends after it.
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

export class RunSignals {
  /** The first signal received, if any. */
  received: NodeJS.Signals | undefined;
  private reaction: ((sig: NodeJS.Signals, again: boolean) => void) | undefined;
  private readonly handlers: ReadonlyArray<readonly [NodeJS.Signals, () => void]>;

  constructor() {
    this.handlers = SIGNALS.map((sig) => {
      const h = () => {
        const again = this.received !== undefined;
        this.received ??= sig;
        this.reaction?.(sig, again);
      };
      process.on(sig, h);
      return [sig, h] as const;
    });
  }

  react(reaction: ((sig: NodeJS.Signals, again: boolean) => void) | undefined): void {
    this.reaction = reaction;
  }

  /** An AbortSignal that aborts at the first signal (for a stage that only has to stop). */
  abortSignal(): AbortSignal {
    const ac = new AbortController();
    if (this.received) ac.abort();
    this.react(() => ac.abort());
    return ac.signal;
  }

  dispose(): void {
    for (const [sig, h] of this.handlers) process.off(sig, h);
  }
}
