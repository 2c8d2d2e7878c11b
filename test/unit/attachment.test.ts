// The one Content-Disposition writer (src/core/attachment.ts): a quote or backslash in a name, as a
// gallery's name may hold, never ends the header's quoted fallback; the UTF-8 name is kept whole.
import { describe, expect, it } from 'vitest';
import { attachment } from '../../src/core/attachment.js';

describe('attachment', () => {
  it('keeps a plain name as it is', () => {
    expect(attachment('Proofs.zip')).toBe(`attachment; filename="Proofs.zip"; filename*=UTF-8''Proofs.zip`);
  });

  it('replaces quotes, backslashes and non-ASCII in the fallback, and keeps them in the UTF-8 name', () => {
    expect(attachment('Anna "&" Ben\\Été.zip')).toBe(`attachment; filename="Anna _&_ Ben__t_.zip"; filename*=UTF-8''Anna%20%22%26%22%20Ben%5C%C3%89t%C3%A9.zip`);
  });
});
