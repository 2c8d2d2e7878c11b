// Every migration, in order. Names sort lexicographically; never rename one.
import type { Kysely, Migration } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';
import * as m001 from './001_core.js';
import * as m002 from './002_galleries.js';
import * as m003 from './003_media.js';
import * as m004 from './004_uploads.js';
import * as m005 from './005_file_deletions.js';
import * as m006 from './006_session_expiry.js';
import * as m007 from './007_renditions.js';
import * as m008 from './008_visitor_links.js';
import * as m009 from './009_media_file_metadata.js';
import * as m010 from './010_page_stamps.js';
import * as m011 from './011_website_brand.js';
import * as m012 from './012_job_lanes.js';
import * as m013 from './013_presentation.js';
import * as m014 from './014_favourites.js';
import * as m015 from './015_activity.js';
import * as m016 from './016_job_held.js';
import * as m017 from './017_resumable_uploads.js';
import * as m018 from './018_studio_admin.js';
import * as m019 from './019_rule_stamps.js';
import * as m020 from './020_stamp_lock_order.js';
import * as m021 from './021_storage_quota.js';
import * as m022 from './022_hostname_proof.js';
import * as m023 from './023_account_guards.js';
import * as m024 from './024_price_lists.js';
import * as m025 from './025_orders.js';
import * as m026 from './026_payment_accounts.js';
import * as m027 from './027_activity_by_owner.js';
import * as m028 from './028_change_feed.js';
import * as m029 from './029_gallery_expiry.js';
import * as m030 from './030_media_alt_text.js';
import * as m031 from './031_shop_prints.js';
import * as m032 from './032_shop_coupons_taxes.js';
import * as m033 from './033_download_controls.js';
import * as m034 from './034_website_home.js';
import * as m035 from './035_webhooks.js';
import * as m036 from './036_media_camera.js';
import * as m037 from './037_favourite_lists.js';
import * as m038 from './038_invitation_deliveries.js';
import * as m040 from './040_share_links.js';
import * as m041 from './041_lightbox_share_links.js';

const modules = {
  '001_core': m001,
  '002_galleries': m002,
  '003_media': m003,
  '004_uploads': m004,
  '005_file_deletions': m005,
  '006_session_expiry': m006,
  '007_renditions': m007,
  '008_visitor_links': m008,
  '009_media_file_metadata': m009,
  '010_page_stamps': m010,
  '011_website_brand': m011,
  '012_job_lanes': m012,
  '013_presentation': m013,
  '014_favourites': m014,
  '015_activity': m015,
  '016_job_held': m016,
  '017_resumable_uploads': m017,
  '018_studio_admin': m018,
  '019_rule_stamps': m019,
  '020_stamp_lock_order': m020,
  '021_storage_quota': m021,
  '022_hostname_proof': m022,
  '023_account_guards': m023,
  '024_price_lists': m024,
  '025_orders': m025,
  '026_payment_accounts': m026,
  '027_activity_by_owner': m027,
  '028_change_feed': m028,
  '029_gallery_expiry': m029,
  '030_media_alt_text': m030,
  '031_shop_prints': m031,
  '032_shop_coupons_taxes': m032,
  '033_download_controls': m033,
  '034_website_home': m034,
  '035_webhooks': m035,
  '036_media_camera': m036,
  '037_favourite_lists': m037,
  '038_invitation_deliveries': m038,
  '040_share_links': m040,
  '041_lightbox_share_links': m041,
};

/**
 * The migrations for one database: each is told the dialect it runs on, going up and going down
 * (010's and 019's triggers are dropped in each database's own syntax).
 */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(modules).map(([name, m]) => {
      const down = m.down as (db: Kysely<MigrationDb>, dialect: Dialect) => Promise<void>;
      return [name, { up: (db: Kysely<MigrationDb>) => m.up(db, dialect), down: (db: Kysely<MigrationDb>) => down(db, dialect) }];
    }),
  );
}
