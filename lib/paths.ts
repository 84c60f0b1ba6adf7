// Where sparehand keeps its files, found from the environment at call time (tests set HOME).
import { join } from 'node:path';
import type { Context } from './context.js';

type Env = Pick<Context, 'home' | 'env'>;

export const configDir = (c: Env): string => join(c.env.XDG_CONFIG_HOME || join(c.home, '.config'), 'sparehand');
export const configPath = (c: Env): string => c.env.SPAREHAND_CONFIG || join(configDir(c), 'config.json');
export const cacheDir = (c: Env): string => join(c.env.XDG_CACHE_HOME || join(c.home, '.cache'), 'sparehand');
export const stateDir = (c: Env): string => join(c.env.XDG_STATE_HOME || join(c.home, '.local', 'state'), 'sparehand');
export const hookLogPath = (c: Env): string => join(stateDir(c), 'hook.log');
