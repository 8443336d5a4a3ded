/** A file layer for tests that need an fsync to be in progress at a known moment. */
import path from 'node:path';
import { type FileLayer, nodeFileLayer } from '../../src/storage/file-io.js';

export interface HoldingLayer extends FileLayer {
  /** Lets every held fsync run, and every later one at once. */
  release(): void;
  /** How many fsyncs are held now. */
  holding(): number;
}

/** node:fs, except that fsyncs of files under the directory `held` wait until `release()`. */
export function holdingLayer(held: string): HoldingLayer {
  const files = new Map<number, string>();
  let parked: Array<() => void> | undefined = [];
  return {
    ...nodeFileLayer,
    openSync(file, flags) {
      const fd = nodeFileLayer.openSync(file, flags);
      files.set(fd, path.resolve(file));
      return fd;
    },
    fsync(fd, callback) {
      const go = (): void => nodeFileLayer.fsync(fd, callback);
      if (parked && files.get(fd)?.startsWith(held + path.sep)) parked.push(go);
      else go();
    },
    release() {
      const waiting = parked ?? [];
      parked = undefined;
      for (const go of waiting) go();
    },
    holding: () => parked?.length ?? 0,
  };
}
