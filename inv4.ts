import { startTestServer } from './test/helpers/server.js';
const s = await startTestServer({ TEST_LOG_LEVEL: 'debug' });
await s.sql(`CREATE DATABASE pg WITH ENGINE = 'postgres', PARAMETERS = {"host":"127.0.0.1","user":"postgres","database":"inv12x"}`);
await s.sql(`CREATE DATABASE my WITH ENGINE = 'mariadb', PARAMETERS = {"host":"127.0.0.1","user":"root","database":"inv12x"}`);
const q = process.argv[2];
console.log(JSON.stringify(await s.sql('EXPLAIN ' + q)).slice(0, 3000));
for (let i = 0; i < 5; i++) { const t = performance.now(); const r = await s.sql(q); console.log((performance.now() - t).toFixed(0), 'ms', JSON.stringify(r).slice(0, 200)); }
await s.stop();
