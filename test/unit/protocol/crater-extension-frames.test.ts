import { describe, it } from 'vitest';
import { expectFrameVector, frameVectors } from './fixtures.js';

describe('docs/extensions.md frame vectors', () => {
  it.each(frameVectors('wire/crater-extensions.json'))(
    '$name encodes to the documented bytes and decodes back',
    expectFrameVector,
  );
});
