// One error type for everything sparehand itself gets wrong; thrown deep, caught only in lib/cli.ts, which alone
// turns its code into an exit status.
export type ErrorCode = 'USAGE' | 'CONFIG' | 'PARSE' | 'IO' | 'NOT_FOUND' | 'WORKER' | 'SSH' | 'SYNC' | 'BUSY' | 'INSTALL' | 'INTERNAL';

/**
 * Marks sparehand's errors across copies of this class: each bundle (the CLI, the hook's two) carries its own
 * copy, so `instanceof` fails for an error made by another one (execa's isExecaError checks a mark the same way).
 */
const BRAND = Symbol.for('sparehand.error');

export class SparehandError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SparehandError';
    this.code = code;
    this.hint = options.hint;
  }
}

export const isSparehandError = (e: unknown): e is SparehandError => typeof e === 'object' && e !== null && (e as { [BRAND]?: unknown })[BRAND] === true;
