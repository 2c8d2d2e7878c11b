// Every migration, in order. Names sort lexicographically; never rename one.
import * as m001 from './001_core.js';
import * as m002 from './002_galleries.js';
import * as m003 from './003_media.js';
import * as m004 from './004_uploads.js';
import * as m005 from './005_file_deletions.js';
import * as m006 from './006_session_expiry.js';

export const migrations = {
  '001_core': m001,
  '002_galleries': m002,
  '003_media': m003,
  '004_uploads': m004,
  '005_file_deletions': m005,
  '006_session_expiry': m006,
};
