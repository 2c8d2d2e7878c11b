// The file-name lists of a client's selection (src/lightboxes/file-names.ts; docs/studio.md
// "Proofing"): Lightroom's comma-separated names without extension, Capture One's
// space-separated ones, and the full names one a line; each name once, in the order picked.
import { describe, expect, it } from 'vitest';
import { baseName, fileNameLists } from '../../src/lightboxes/file-names.js';

describe('proofing file names', () => {
  it('drops the last extension only', () => {
    expect(baseName('DSC_0012.NEF')).toBe('DSC_0012');
    expect(baseName('wedding.day.01.jpg')).toBe('wedding.day.01');
    expect(baseName('README')).toBe('README');
    expect(baseName('.hidden')).toBe('.hidden');
  });

  it('gives each form in the order picked, each name once, and counts the medias without a name', () => {
    const lists = fileNameLists(['IMG_0003.jpg', 'IMG_0001.CR3', null, 'IMG_0001.jpg', 'IMG_0003.jpg', ' ', 'a\nb.jpg']);
    expect(lists.lightroom).toBe('IMG_0003, IMG_0001, a b');
    expect(lists.captureOne).toBe('IMG_0003 IMG_0001 a b');
    expect(lists.lines).toBe('IMG_0003.jpg\nIMG_0001.CR3\nIMG_0001.jpg\na b.jpg');
    expect(lists.missing).toBe(2);
  });

  it('gives empty lists for no picks', () => {
    expect(fileNameLists([])).toEqual({ lightroom: '', captureOne: '', lines: '', missing: 0 });
  });
});
