// File names the service hands back (step-1 `file-name`): clients splice
// upload fields into program text between double quotes (client-compat), so
// no quotes, backslashes, line breaks or path separators survive.

const MAX_LENGTH = 255;

export function sanitizeFileName(name: string): string {
  const lastSegment = name.split(/[\\/]/).pop() ?? '';
  let clean = lastSegment.replace(/["\\\x00-\x1f\x7f\u0085\u2028\u2029]/g, '').trim();
  if (clean === '.' || clean === '..') clean = '';
  if (clean.length > MAX_LENGTH) {
    const dot = clean.lastIndexOf('.');
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
    clean = [...clean.slice(0, clean.length - ext.length)].slice(0, MAX_LENGTH - ext.length).join('') + ext;
  }
  return clean || 'file';
}
