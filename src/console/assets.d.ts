// CSS files esbuild bundles (scripts/build-console.mjs).
declare module '*.css';
