/**
 * file-io's positional helpers, writeAtSync and readAtSync (the commit log's segment and index I/O): through a file
 * layer that moves at most 3 bytes a call, so their loops over short writes and reads are what makes them whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import {
  type FileLayer,
  installFileLayer,
  nodeFileLayer,
  readAtSync,
  storageFs,
  writeAtSync,
} from '../../../src/storage/file-io.js';

const CHUNK = 3;
const trickle: FileLayer = {
  ...nodeFileLayer,
  writeSync: (fd, buf, off, len, position) => nodeFileLayer.writeSync(fd, buf, off, Math.min(len, CHUNK), position),
  readSync: (fd, buf, off, len, position) => nodeFileLayer.readSync(fd, buf, off, Math.min(len, CHUNK), position),
};

let tmp = '';
let restore: () => void;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-file-io-'));
  restore = installFileLayer(trickle);
});
afterEach(() => {
  restore();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('writeAtSync and readAtSync', () => {
  it('write and read a whole buffer at a position in short steps', () => {
    const fd = storageFs.openSync(path.join(tmp, 'f'), 'w+');
    try {
      writeAtSync(fd, Buffer.from('0123456789'), 0);
      writeAtSync(fd, Buffer.from('abcdefg'), 4);
      const back = Buffer.alloc(8);
      readAtSync(fd, back, 2);
      expect(back.toString()).toBe('23abcdef');
    } finally {
      storageFs.closeSync(fd);
    }
    expect(fs.readFileSync(path.join(tmp, 'f'), 'utf8')).toBe('0123abcdefg');
  });

  it('a read the file cannot fill is a StorageError naming where the bytes ran out', () => {
    const fd = storageFs.openSync(path.join(tmp, 'f'), 'w+');
    try {
      writeAtSync(fd, Buffer.from('0123456789'), 0);
      const read = () => readAtSync(fd, Buffer.alloc(8), 5);
      expect(read).toThrow(StorageError);
      expect(read).toThrow('short read at 10');
    } finally {
      storageFs.closeSync(fd);
    }
  });
});
