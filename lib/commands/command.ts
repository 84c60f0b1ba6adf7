// The command every subcommand is registered on: its action returns its exit status, and lib/cli.ts takes the status
// of the one that ran (`exitStatus`), so no setter is threaded through the `register`s.
import { Command } from 'commander';

/** A subcommand's action: its arguments and options, as commander gives them, to the exit status of what it did. */
// biome-ignore lint/suspicious/noExplicitAny: each action declares its own arguments' types, as commander's `action` lets it
export type Action = (...args: any[]) => number | Promise<number>;

export class SparehandCommand extends Command {
  // Shared by the root and every command made under it: one program, one status.
  readonly #ran: { status: number };

  constructor(name?: string, ran: { status: number } = { status: 0 }) {
    super(name);
    this.#ran = ran;
  }

  override createCommand(name?: string): SparehandCommand {
    return new SparehandCommand(name, this.#ran);
  }

  override action(fn: Action): this;
  // Only so that this stays a commander Command (whose actions return nothing): no function is a `never`, so every
  // action must return its status.
  override action(fn: never): this;
  override action(fn: Action): this {
    return super.action(async (...args: unknown[]) => {
      this.#ran.status = await fn(...args);
    });
  }

  /** The exit status the action that ran returned (0 while none has). */
  get exitStatus(): number {
    return this.#ran.status;
  }
}
