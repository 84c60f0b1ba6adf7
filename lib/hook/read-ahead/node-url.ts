// node:url for a bundle that runs where there is no node (../read-ahead.ts): file URLs and paths, both ways.

export const fileURLToPath = (url: string | URL): string => decodeURIComponent(new URL(String(url)).pathname);

export const pathToFileURL = (path: string): URL => new URL(`file://${encodeURI(path)}`);

export default { fileURLToPath, pathToFileURL };
