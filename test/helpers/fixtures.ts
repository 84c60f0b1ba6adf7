// The files tests read: all inside the repository, under test/fixtures/ (each with where and when it came from).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export const fixtureJson = (path: string): unknown => JSON.parse(readFileSync(`${FIXTURES}${path}`, 'utf8'));
