// Writes docs/reference/functions.md from the function matrix (see test/integration/sql/dialects/function-doc.ts).
// Usage: node --import tsx scripts/gen-functions-doc.ts
import { writeFileSync } from 'node:fs';
import { functionsDoc } from '../test/integration/sql/dialects/function-doc.js';

writeFileSync('docs/reference/functions.md', functionsDoc());
console.log('wrote docs/reference/functions.md');
