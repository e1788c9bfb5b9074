/**
 * The replica contract (SPEC §13): the same cases against one server and against two replicas
 * behind the shipped nginx configuration (round-robin, no stickiness), so whatever a client does
 * through one server it does through the pair: login tokens, the MCP SDK client over Streamable
 * HTTP (initialize → tools/list → query → resources/read → handle paging), uploads seen by every
 * replica, a knowledge base searched through either. Reads are repeated through the front so each
 * replica answers some of them. Real processes on loopback (test/helpers/replica-cluster.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ReplicaCluster, replicaCluster } from '../../helpers/replica-cluster.js';
import { type Connected, connect, jsonContents } from '../mcp/helpers/clients.js';

const USER = 'contract';
const PASSWORD = 'pw-contract-0123456789';
/** Each read is repeated so that round-robin lands it on every replica. */
const ROUNDS = 4;
let cluster: ReplicaCluster;

before(async () => {
  cluster = await replicaCluster('i30_replica_contract', {
    TRIBUTARY_USERNAME: USER,
    TRIBUTARY_PASSWORD: PASSWORD,
    TRIBUTARY_MCP_MAX_ROWS: '10',
  });
});

after(async () => {
  await cluster?.stop();
});

async function login(url: string): Promise<string> {
  const r = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER, password: PASSWORD }),
  });
  assert.equal(r.status, 200);
  return ((await r.json()) as { token: string }).token;
}

async function sql(url: string, token: string, query: string): Promise<any> {
  const r = await fetch(`${url}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return r.json();
}

function contract(topology: string, front: () => string, tag: string) {
  describe(`replica contract: ${topology}`, () => {
    let token: string;
    const clients: Connected[] = [];
    before(async () => {
      token = await login(front());
    });
    after(async () => {
      for (const c of clients) await c.terminate().catch(() => {});
    });

    test('a login token works on every request, a wrong one on none', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        assert.equal((await sql(front(), token, 'SELECT 1 AS one')).data[0][0], 1);
        const wrong = await fetch(`${front()}/api/sql/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-token' },
          body: JSON.stringify({ query: 'SELECT 1' }),
        });
        assert.equal(wrong.status, 401);
      }
    });

    test('an upload is a table on every request, and its deletion too', async () => {
      const name = `orders_${tag}`;
      const csv = `id,city\n${Array.from({ length: 25 }, (_, i) => `${i + 1},${i % 2 ? 'Oslo' : 'Bergen'}`).join('\n')}\n`;
      const up = await fetch(`${front()}/api/files/${name}`, {
        method: 'PUT',
        body: csv,
        headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` },
      });
      assert.equal(up.status, 201, await up.text());
      for (let i = 0; i < ROUNDS; i++) {
        const r = await sql(
          front(),
          token,
          `SELECT city, COUNT(*) FROM files.${name} GROUP BY city ORDER BY city`,
        );
        assert.deepEqual(r.data, [
          ['Bergen', 13],
          ['Oslo', 12],
        ]);
        const list = (await (
          await fetch(`${front()}/api/files`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { name: string }[];
        assert.ok(
          list.some((f) => f.name === name),
          'listed',
        );
      }
    });

    test('the MCP SDK client over Streamable HTTP: tools, query, resources, handle paging', async () => {
      const c = await connect('streamable', front(), { authorization: `Bearer ${token}` });
      clients.push(c);
      const tools = await c.client.listTools();
      assert.deepEqual(
        tools.tools.map((t) => t.name),
        ['query'],
      );
      const call = async (query: string) =>
        JSON.parse(
          (await c.client.callTool({ name: 'query', arguments: { query } })).content[0].text as string,
        );
      const first = await call(`SELECT id FROM files.orders_${tag} ORDER BY id`);
      assert.equal(first.truncated, true, JSON.stringify(first));
      assert.equal(first.rows_available, 25);
      const dbs = jsonContents(await c.client.readResource({ uri: 'schema://databases' })) as string[];
      assert.ok(dbs.includes('files'), JSON.stringify(dbs));
      // Each page is one request; round-robin sends them to both replicas.
      for (let offset = 10; offset < 25; offset += 5) {
        const page = await call(`SELECT * FROM result('${first.handle}') LIMIT 5 OFFSET ${offset}`);
        assert.deepEqual(
          page.data,
          Array.from({ length: 5 }, (_, i) => [offset + i + 1]),
        );
      }
    });

    test('a knowledge base searched through any replica gives the same hits', async () => {
      const kb = `notes_${tag}`;
      assert.equal(
        (
          await sql(
            front(),
            token,
            `CREATE KNOWLEDGE_BASE ${kb} USING content_columns = ['body'], metadata_columns = ['team']`,
          )
        ).type,
        'ok',
      );
      // A KB made through one replica is known to the other at once, though the catalog's NOTIFY
      // may still be on its way: a name no KB had there makes that replica re-read the catalog.
      const insert = `INSERT INTO ${kb} (id, body, team) VALUES (1, 'Deploys happen on Tuesdays.', 'ops'), (2, 'Refunds take five days.', 'billing'), (3, 'Deploy freezes start in December.', 'ops')`;
      const inserted = await sql(front(), token, insert);
      assert.equal(inserted.type, 'ok', JSON.stringify(inserted));
      const hits: unknown[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const r = await sql(front(), token, `SELECT id FROM ${kb} WHERE content = 'refunds' LIMIT 1`);
        hits.push(r.data);
      }
      assert.deepEqual(hits, Array(ROUNDS).fill([['2']]));
    });

    test('deleting an upload removes it for every request', async () => {
      const name = `orders_${tag}`;
      const del = await fetch(`${front()}/api/files/${name}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(del.status, 204);
      for (let i = 0; i < ROUNDS; i++)
        assert.equal((await sql(front(), token, `SELECT * FROM files.${name}`)).error_code, 1146);
    });
  });
}

let one = '';
describe('one server', () => {
  before(async () => {
    one = (await cluster.startReplica('a')).url;
  });
  contract('one server', () => one, 'one');
});

describe('two replicas behind nginx', () => {
  before(async () => {
    await cluster.startReplica('b');
    await cluster.startNginx();
  });
  contract('two replicas behind nginx round-robin', () => cluster.url, 'two');
});
