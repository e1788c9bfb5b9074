/**
 * RelaySink's column definitions (relay-sink.ts): DECIMAL scales and fractional seconds are
 * read from the held rows' bytes in place, and must come out as the normal path reads them
 * from decoded values (columns.ts wireColumns), or the memoized head of one result would be
 * sent for another's.
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { describe, test } from 'node:test';
import type { FieldInfo } from '../../../src/core/types.js';
import { columnDecimals, wireColumns, writeColumnDef } from '../../../src/wire/columns.js';
import { PacketOut } from '../../../src/wire/packets.js';
import { heldDecimals, RelaySink, sampleRows } from '../../../src/wire/relay-sink.js';
import { writeEof } from '../../../src/wire/replies.js';

/** A text-protocol row: each cell length-encoded, null as 0xfb. */
function row(cells: (string | null)[]): Buffer {
  const out = new PacketOut();
  out.begin();
  for (const c of cells) {
    if (c === null) out.int1(0xfb);
    else out.lenencBytes(Buffer.from(c, 'latin1'));
  }
  out.end();
  return out.take().subarray(4);
}

/** What the sink writes for `rows`: head, rows, EOF. */
function relayed(fields: FieldInfo[], rows: Buffer[]): Buffer {
  const out = new PacketOut();
  out.seq = 1;
  // What reached the socket (past 64 KiB the sink writes), then what it leaves for the session.
  const written: Buffer[] = [];
  const socket = { write: (b: Buffer) => written.push(Buffer.from(b)) > 0 } as unknown as Socket;
  const sink = new RelaySink(out, socket, 'db', () => false);
  sink.head(fields, () => {});
  for (const r of rows) sink.row(r, 0, r.length);
  sink.end();
  return Buffer.concat([...written, out.take()]);
}

/** The same result as the normal path writes it, from decoded values. */
function normal(fields: FieldInfo[], cells: (string | null)[][]): Buffer {
  const out = new PacketOut();
  out.seq = 1;
  const cols = wireColumns(fields, cells);
  out.begin().lenenc(cols.length).end();
  for (const c of cols) writeColumnDef(out, c, 'db');
  writeEof(out);
  for (const r of cells) out.begin().bytes(row(r)).end();
  writeEof(out);
  return out.take();
}

describe('relay sink column definitions', () => {
  const fields: FieldInfo[] = [
    { name: 'id', type: 'INT' },
    { name: 'price', type: 'DECIMAL' },
    { name: 'at', type: 'DATETIME' },
    { name: 'tm', type: 'TIME' },
    { name: 'note', type: 'VARCHAR' },
  ];
  const results: (string | null)[][][] = [
    [['1', '12.50', '2024-01-01 00:00:00', '12:00:00', 'a.b.c']],
    [['2', '3.125', '2024-01-01 00:00:00.5', '-838:59:59.000001', null]],
    [['3', null, null, null, '.']],
    [
      ['4', '7', '2024-01-01 00:00:00.123456', '00:00:01.25', 'x'],
      ['5', '0.1234567890123456789012345678901234', '2024-01-01 00:00:00', '00:00:00', 'y'.repeat(300)],
    ],
    [],
    [['6', '1.'.padEnd(70_000, '9'), '2024-01-01', '1.5', 'z'.repeat(70_000)]],
  ];

  test('decimals read from the row bytes equal those of the decoded sample', () => {
    for (const cells of results) {
      const rows = cells.map(row);
      const sample = sampleRows(fields, rows);
      assert.deepEqual(
        heldDecimals(fields, rows),
        fields.map((f, i) => columnDecimals(f, i, sample)),
        JSON.stringify(cells).slice(0, 120),
      );
    }
  });

  test('decimals read from the row bytes equal those read from the values, result after result', () => {
    // Run in this order and again: each head is memoized by the decimals, so a wrong scan would send a stale one.
    for (const cells of [...results, ...results.slice().reverse()]) {
      const got = relayed(fields, cells.map(row));
      const want = normal(fields, cells);
      assert.ok(
        got.equals(want),
        `${JSON.stringify(cells).slice(0, 120)}: ${got.length} bytes, want ${want.length}`,
      );
    }
  });
});
