// A client's picks as the lists photographers paste into their editing software's filter
// (docs/studio.md, "Proofing"): Lightroom Classic's Library filter (Text: Filename, Contains)
// takes names without extension separated by commas; Capture One's Filters search takes names
// separated by spaces. Each name once, in the order picked.

/** The name without its last extension (`DSC_0012.NEF` → `DSC_0012`); a name without one as it is. */
export function baseName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** The lists for one selection: `lightroom` (comma-separated), `captureOne` (space-separated), `lines` (full names, one a line). */
export function fileNameLists(fileNames: ReadonlyArray<string | null>): { lightroom: string; captureOne: string; lines: string; missing: number } {
  const full = new Set<string>();
  const bases = new Set<string>();
  let missing = 0;
  for (const raw of fileNames) {
    // Line breaks or tabs in a name would split it in any of the three forms.
    const name = raw?.replace(/[\s]+/g, ' ').trim();
    if (!name) {
      missing++;
      continue;
    }
    full.add(name);
    bases.add(baseName(name));
  }
  return { lightroom: [...bases].join(', '), captureOne: [...bases].join(' '), lines: [...full].join('\n'), missing };
}
