// Which config schema this build checks with: set at build time (scripts/build.js: a hash of lib/config.ts and zod's
// version), so that a check kept by one build is taken only by a build that would find the same (lib/config-kept.ts).
// Undefined where the code runs unbundled: there every config is checked.

declare const __SPAREHAND_CONFIG_SCHEMA__: string | undefined;

export const configSchemaId = (): string | undefined => (typeof __SPAREHAND_CONFIG_SCHEMA__ === 'string' ? __SPAREHAND_CONFIG_SCHEMA__ : undefined);
