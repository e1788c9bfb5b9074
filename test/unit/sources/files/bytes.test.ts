import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { LocalFileBytes } from '../../../../src/sources/files/index.js';
import { fileBytesContract } from './bytes-contract.js';
import { MemoryFileStore } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'tributary-bytes-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('local file bytes: contract', () => {
  fileBytesContract(async () => {
    const dir = mkdtempSync(join(root, 'd-'));
    mkdirSync(join(dir, 'files', '.tmp'), { recursive: true });
    const store = new MemoryFileStore();
    // One server: every process on this storage dir reads the same files.
    return { store, open: async () => ({ bytes: new LocalFileBytes(dir, 0), storageDir: dir }) };
  });
});
