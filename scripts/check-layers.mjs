#!/usr/bin/env node
// The layer rule of docs/architecture.md, checked: every import in src/ points to a lower
// layer (or stays in its own room), and no file imports itself back through a cycle.
// Type-only imports count: they are dependencies of the design too.
//
// Usage: node scripts/check-layers.mjs [srcDir]   (exit 1 with the offending imports)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Rooms by layer, lowest first. A room may import its own files and rooms of lower layers. */
export const LAYERS = [
  ['core'],
  ['config', 'egress'],
  ['sources'],
  ['catalog', 'observe'],
  ['auth', 'sql'],
  ['kb'],
  ['mcp', 'wire', 'console'],
  ['http'],
  ['cli'],
];

/** Files only start-up may import (it reads the environment once and passes values down). */
const STARTUP_ONLY = new Map([['config/load.ts', ['cli']]]);

const rank = new Map(LAYERS.flatMap((rooms, i) => rooms.map((r) => [r, i])));

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** `src/sql/plan/x.ts` → `sql`; a file at the root of src is a room of its own name. */
function roomOf(src, file) {
  const parts = relative(src, file).split(sep);
  return parts.length === 1 ? parts[0].replace(/\.ts$/, '') : parts[0];
}

/** Relative imports of a file (static, `export ... from`, dynamic): `{ line, target }`, target a .ts path. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  // TypeScript's own pre-processor: comments, strings and template text never count as imports.
  for (const { fileName, pos } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const line = text.slice(0, pos).split('\n').length;
    let target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
    if (!target.endsWith('.ts')) target += '.ts';
    out.push({ line, target });
  }
  return out;
}

/** Every violation in `src`: imports against the layer order, start-up-only imports, and cycles. */
export function check(srcDir) {
  const src = resolve(srcDir);
  const problems = [];
  const graph = new Map();
  for (const file of files(src)) {
    const from = roomOf(src, file);
    const edges = [];
    for (const { line, target } of importsOf(file)) {
      edges.push(target);
      const to = roomOf(src, target);
      const where = `${relative(process.cwd(), file)}:${line}`;
      const only = STARTUP_ONLY.get(relative(src, target).split(sep).join('/'));
      if (only && !only.includes(from))
        problems.push(
          `${where}: ${from} imports ${relative(src, target)}, which only ${only.join(', ')} may import`,
        );
      if (from === to) continue;
      if (!rank.has(from) || !rank.has(to)) {
        problems.push(
          `${where}: ${from} -> ${to}: a room outside the layer table (scripts/check-layers.mjs)`,
        );
        continue;
      }
      if (rank.get(to) >= rank.get(from))
        problems.push(
          `${where}: ${from} imports ${to} (${relative(src, target)}): ${to} is not below ${from}`,
        );
    }
    graph.set(file, edges);
  }
  for (const cycle of cycles(graph))
    problems.push(`cycle: ${cycle.map((f) => relative(process.cwd(), f)).join(' -> ')}`);
  return problems;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.reverse());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = check(process.argv[2] ?? 'src');
  if (problems.length) {
    console.error(`Layer check: ${problems.length} problem(s) (docs/architecture.md, "Layers"):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log('Layer check: every import points down, no cycles.');
}
