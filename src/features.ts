// Every feature of the service, in the order their routes are declared and
// their background work starts. One line per feature folder.
import type { Services } from './http/context.js';
import type { ApiRouter } from './http/router.js';
import { sessionFeature } from './users/routes.js';
import { sessionCleanupFeature } from './users/session-cleanup.js';
import { websitesFeature } from './websites/routes.js';
import { artistsFeature } from './artists/routes.js';
import { watermarksFeature } from './artists/watermarks.js';
import { galleriesFeature } from './galleries/routes.js';
import { displayStylesFeature } from './galleries/display-styles.js';
import { uploadTargetFeature } from './storage/upload-target-routes.js';
import { uploadCleanupFeature } from './media/upload-cleanup.js';
import { mediaFeature } from './media/routes.js';
import { groupsFeature } from './groups/routes.js';
import { jobsFeature } from './jobs/routes.js';

export interface Feature {
  name: string;
  routes?(router: ApiRouter): void;
  /** Background work (job workers, cleanup timers); runs after migrations. */
  start?(services: Services): Promise<void> | void;
  stop?(services: Services): Promise<void> | void;
}

export const features: Feature[] = [sessionFeature, sessionCleanupFeature, websitesFeature, artistsFeature, watermarksFeature, galleriesFeature, displayStylesFeature, uploadTargetFeature, uploadCleanupFeature, mediaFeature, groupsFeature, jobsFeature];
