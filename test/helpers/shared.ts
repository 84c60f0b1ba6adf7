// The steering repo's shared/ folder (SPEC, per-tool facts, vendor schemas) sits beside the clone.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));

export const sharedJson = (path: string): unknown => JSON.parse(readFileSync(`${SHARED}${path}`, 'utf8'));
