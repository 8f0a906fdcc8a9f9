// Import aliases for every esbuild bundle of our code (esbuild.mjs, scripts/vscode/buildIntegrationTests.mjs).
// jsonc-parser's main is a UMD file whose factory require()s './impl/format' at run time, which a
// bundle cannot follow (Connect Agents failed with "Cannot find module './impl/format'"): take its
// ES module build, which esbuild bundles whole.
export const BUNDLE_ALIASES = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
