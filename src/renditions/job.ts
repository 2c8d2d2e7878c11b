// The renditions job as it is queued: its kind and payload. Apart from the
// service (which loads sharp) so that the owner of a file's life
// (src/media/file-life.ts) queues it without loading the image libraries.

export const RENDITIONS_JOB_KIND = 'renditions';

export interface RenditionsPayload {
  mediaId: number;
  /** The file the renditions are made from: a replace meanwhile makes this job's work garbage. */
  storageKey: string;
}
