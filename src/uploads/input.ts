// The upload steps as a /medias request carries them (docs/uploads.md):
// `media[content][upload_location]` REQUEST is step 1, a location returned by
// step 1 is step 3. Declared here as inputs of the media routes.
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';

/** Parameter names the upload steps accept (`upload_duration`, a client's statistic, is accepted and not used). */
const UPLOAD_PARAMS = [
  'media[content][upload_location]',
  'media[content][file_name]',
  'media[content][file_size]',
  'media[content][mime_type]',
  'media[content][capabilities]',
  'media[content][failed_locations]',
  'media[content][upload_duration]',
] as const;

/** Step 1: the file the client is about to send. */
export interface UploadDeclaration {
  fileName: string;
  /** Required: missing is refused by the service, in its order of checks. */
  fileSize?: number;
  mimeType?: string;
  capabilities: readonly string[];
  failedLocations: readonly string[];
}

/** Step 3: the location step 1 returned, and the size the client sent, if any. */
export interface UploadCompletion {
  location: string;
  fileSize?: number;
}

export type UploadStep = { step: 'request'; declaration: UploadDeclaration } | { step: 'complete'; completion: UploadCompletion };

/** `media[content][upload_location]` is REQUEST: step 1 (POST /medias.xml, or PUT of an existing media to replace its file). */
export function isUploadRequest(params: Params): boolean {
  return params.str('media[content][upload_location]') === 'REQUEST';
}

/** `media[content][upload_location]` names a location returned by step 1: step 3 on PUT /medias/<uuid>.xml. */
function isUploadCompletion(params: Params): boolean {
  const v = params.str('media[content][upload_location]');
  return v !== undefined && v !== '' && v !== 'REQUEST';
}

function readUploadDeclaration(params: Params): UploadDeclaration {
  return {
    fileName: params.required('media[content][file_name]'),
    fileSize: params.int('media[content][file_size]'),
    mimeType: params.str('media[content][mime_type]'),
    capabilities: params.csvList('media[content][capabilities]') ?? [],
    failedLocations: params.csvList('media[content][failed_locations]') ?? [],
  };
}

/** Step 1 on POST /medias.xml (read once the request is known to ask for a location: `isUploadRequest`). */
export const uploadDeclaration: Input<UploadDeclaration> = input(UPLOAD_PARAMS, readUploadDeclaration);

/** The upload step of a PUT /medias/<uuid>.xml, if it takes one. */
export const uploadStep: Input<UploadStep | undefined> = input(UPLOAD_PARAMS, readUploadStep);

function readUploadStep(params: Params): UploadStep | undefined {
  if (isUploadRequest(params)) return { step: 'request', declaration: readUploadDeclaration(params) };
  if (isUploadCompletion(params)) {
    return { step: 'complete', completion: { location: params.required('media[content][upload_location]'), fileSize: params.int('media[content][file_size]') } };
  }
  return undefined;
}
