// One error class for everything sparehand itself gets wrong; caught only in lib/cli.ts.
export type ErrorCode =
  | 'USAGE'
  | 'CONFIG'
  | 'PARSE'
  | 'IO'
  | 'NOT_FOUND'
  | 'WORKER'
  | 'SSH'
  | 'SYNC'
  | 'BUSY'
  | 'INSTALL'
  | 'INTERNAL';

export class SparehandError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  /** Exit status the CLI uses for this error (125: sparehand failed before the command started). */
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, options: { hint?: string; cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SparehandError';
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 125;
  }
}

export const isSparehandError = (e: unknown): e is SparehandError => e instanceof SparehandError;
