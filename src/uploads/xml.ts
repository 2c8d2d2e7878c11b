// The upload fields of replies (docs/uploads.md): step 1's instructions and a
// stored file's facts, merged into a `<media>` element; step 2's receipt.
import type { XmlObject } from '../http/xml.js';
import type { ReceivedFile, UploadInstructions } from './service.js';

/** step 1: where and how to send the file. */
export function instructionsXml(i: UploadInstructions): XmlObject {
  return {
    'file-name': i.fileName,
    'mime-type': i.mimeType,
    'upload-location': i.location,
    'upload-url': i.target.url,
    'upload-method': i.target.method,
    // One element per parameter, named exactly as the parameter.
    'upload-params': { ...i.target.params },
    'upload-file-param': i.target.fileParam,
  };
}

/** The file a media holds after step 3 or a direct upload. */
export function storedFileXml(f: { fileName: string; mimeType: string | null; size: number | null }): XmlObject {
  return { 'file-name': f.fileName, 'mime-type': f.mimeType, 'file-size': f.size };
}

/** Step 2's answer. */
export function receiptXml(r: ReceivedFile): XmlObject {
  return { message: 'file received', key: r.key, 'file-size': r.size };
}
