// `sparehand agent install` (placeholder: not built yet).
import type { Command } from 'commander';
import type { Context } from '../context.js';

export function register(_agent: Command, _ctx: Context, _setExit: (n: number) => void): void {}
