// Files shipped in the package (bin/, docs/), found from this module: it sits one folder below the package root,
// in lib/ (sources), dist/ (compiled) or as part of a bundle in dist/.
export const packageUrl = (path: string): URL => new URL(`../${path}`, import.meta.url);
