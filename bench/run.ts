/** `npm run bench`: every benchmark, side by side in one run; prints each result and its targets. */
const suites: [string, string, string][] = [
  ['engine', './engine.js', 'benchEngine'],
  ['source-speed', './source-speed.js', 'benchSourceSpeed'],
  ['mcp', './mcp.js', 'benchMcp'],
  ['observe', './observe.js', 'benchObserve'],
  ['passthrough', './passthrough.js', 'benchPassthrough'],
  ['files', './files.js', 'benchFiles'],
  ['soak', './soak.js', 'benchSoak'],
  ['cli', './cli.js', 'benchCli'],
  ['kb', './kb.js', 'benchKb'],
  ['kb-pgvector', './kb-pgvector.js', 'benchKbPgvector'],
  ['kb-join', './kb-join.js', 'benchKbJoin'],
  ['wire', './wire.js', 'benchWire'],
  ['statement-size', './statement-size.js', 'benchStatementSize'],
  ['policy', './policy.js', 'benchPolicy'],
  ['console', './console.js', 'benchConsole'],
  ['replicas', './replicas.js', 'benchReplicas'],
];

const only = process.argv.slice(2);
const results: Record<string, unknown> = {};
for (const [name, mod, fn] of suites) {
  if (only.length && !only.includes(name)) continue;
  let m: any;
  try {
    m = await import(mod);
  } catch {
    continue; // suite not present in this checkout
  }
  process.stderr.write(`bench: ${name}...\n`);
  try {
    results[name] = await m[fn]();
  } catch (e) {
    results[name] = { error: (e as Error).message };
  }
  console.log(JSON.stringify({ [name]: results[name] }, null, 2));
}
process.exit(0);
