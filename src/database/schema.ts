// Row types of every table, as Kysely sees them. Timestamps are ISO text,
// flags 0/1 integers (see 001_core.ts). Feature migrations add their tables here.
import type { Generated, Selectable } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  email: string;
  password_hash: string;
  first_name: Generated<string>;
  last_name: Generated<string>;
  otp_secret: string | null;
  otp_last_step: number | null;
  created_at: string;
  /** 1: an operator of the instance (migration 018, `admin user grant-admin`). */
  is_admin: Generated<number>;
  /** Set: the account is disabled, signs in nowhere (migration 018). */
  disabled_at: Generated<string | null>;
  /** Migration 021: the operator's quota for this account in bytes; NULL: STORAGE_QUOTA_BYTES. */
  quota_bytes: Generated<number | null>;
  /** Set: an operator stopped the mail sent on this account's behalf, invitations (migration 023). */
  mail_stopped_at: Generated<string | null>;
}

/** An address an account signed in from successfully: an HMAC of it, never the address (migration 023). */
export interface LoginOriginsTable {
  user_id: number;
  origin: string;
  last_success_at: string;
}

export interface AppsTable {
  id: Generated<number>;
  name: string;
  api_key: string;
  api_secret: string;
  created_at: string;
  /** The photographer who made it in the studio; null: the operator's (migration 018). */
  owner_id: Generated<number | null>;
  /** Set: revoked, it signs nothing any more (migration 018). */
  revoked_at: Generated<string | null>;
}

/** A new photographer's one-shot link to set their password (migration 018): the SHA-256 of its token. */
export interface UserInvitationsTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionsTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface WebsitesTable {
  id: Generated<number>;
  uuid: string;
  urlname: string;
  title: string;
  hostname: string | null;
  owner_id: number;
  created_at: string;
  updated_at: string;
  // The brand (migration 009, an API extension: docs/website.md).
  tagline: string | null;
  logo_media_id: number | null;
  favicon_media_id: number | null;
  color_scheme: Generated<string>;
  accent_color: string | null;
  theme: Generated<string>;
  credit: string | null;
  copyright: string | null;
  contact_email: string | null;
  /** A JSON array of https URLs. */
  social_links: string | null;
  /** 1 (default): each gallery's `indexing` decides; 0: search engines may index nothing of it (migration 018). */
  indexing: Generated<number>;
  /** A host name asked for and not yet proved (migration 022); `hostname` is the one in effect. */
  hostname_pending: string | null;
  /** The token the pending name's TXT record must hold. */
  hostname_token: string | null;
  /** When the service last looked for the proof, and why it was not found (null: found, or never looked). */
  hostname_checked_at: string | null;
  hostname_check: string | null;
  /** The home page's hero (migration 034): 'fill' (a chosen crop, full-bleed) or 'fit' (whole). */
  hero_fit: Generated<string>;
  hero_headline: string | null;
  hero_tagline: string | null;
}

/** The hero's photos of a website's home page, in order (migration 034). */
export interface WebsiteHeroTable {
  website_id: number;
  position: number;
  media_id: number;
}

/** The galleries featured on a website's home page, in order (migration 034). */
export interface WebsiteFeaturedTable {
  website_id: number;
  position: number;
  gallery_id: number;
}

export interface WebsitePagesTable {
  id: Generated<number>;
  website_id: number;
  slug: string;
  title: string;
  body: string;
  position: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface WebsiteMembersTable {
  website_id: number;
  user_id: number;
}

export interface ArtistsTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  name: string;
  is_default: Generated<number>;
  created_at: string;
}

export interface DisplayStylesTable {
  id: Generated<number>;
  uuid: string;
  website_id: number;
  name: string;
  layout: Generated<string>;
  is_default: Generated<number>;
  /** Extension (migration 009): 1 crops a grid's photos to its cells. */
  crop: Generated<number>;
  /** Extension: none, tight, normal or wide. */
  spacing: Generated<string>;
  /** Extension: 1 shows titles under the photos. */
  captions: Generated<number>;
  created_at: string;
}

export interface WatermarksTable {
  id: Generated<number>;
  uuid: string;
  artist_id: number;
  text: string | null;
  file_name: string | null;
  storage_key: string | null;
  width: number | null;
  height: number | null;
  strength: Generated<number>;
  position: Generated<string>;
  tile: Generated<number>;
  is_default: Generated<number>;
  created_at: string;
}

export interface PricingProfilesTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  name: string;
  created_at: string;
  /** Migration 024 (docs/shop.md): download | print. */
  kind: Generated<string>;
  /** ISO 4217 code (src/shop/money.ts). */
  currency: Generated<string>;
  /** Print lists: the least a print sells for, in minor units. */
  minimum_price: number | null;
  updated_at: string | null;
}

export interface PricingProfileItemsTable {
  id: Generated<number>;
  profile_id: number;
  position: number;
  label: string;
  /** Download sizes: the long edge in pixels, null for the original file; print products: null. */
  long_edge: number | null;
  /** Download price, or a print product's base price (minor units). */
  price: number;
}

export interface PricingProfileOptionsTable {
  id: Generated<number>;
  item_id: number;
  position: number;
  label: string;
  /** One of the two is set: a fixed price, or a ratio over the base price (200 = the base price). */
  price: number | null;
  ratio: number | null;
}

export interface LightboxesTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  name: string;
  created_at: string;
  /** Favourites (migration 014): the gallery a client's selection was made in; null for other lightboxes. */
  gallery_id: Generated<number | null>;
  /** The client: the proved address, or `guest:<pass id>` (docs/delivery.md). */
  client_key: Generated<string | null>;
  client_email: Generated<string | null>;
  client_name: Generated<string | null>;
  /** 1: the address was proved by a sign-in link. */
  client_verified: Generated<number>;
  /** open | sent. */
  state: Generated<string>;
  sent_at: Generated<string | null>;
  updated_at: Generated<string | null>;
}

export interface GalleriesTable {
  id: Generated<number>;
  uuid: string;
  website_id: number;
  parent_id: number | null;
  list_pos: number;
  name: string;
  url_path: string;
  full_url_path: string;
  description: string | null;
  hidden: Generated<number>;
  indexing: Generated<number>;
  password_hash: string | null;
  content_order: Generated<string>;
  content_order_direction: Generated<string>;
  order_subgalleries: Generated<number>;
  display_style_id: number | null;
  cover_media_id: number | null;
  /** Extension (migration 009): the media a protected gallery shows to visitors who may not open it. */
  public_cover_media_id: Generated<number | null>;
  subgalleries_count: Generated<number>;
  url_path_auto: Generated<number>;
  /** Moved by triggers whenever the gallery's visible order may have changed (migration 009). */
  order_stamp: Generated<number>;
  /** Extension (migration 014): how many photos a client may choose here; null: no limit of the photographer's. */
  pick_limit: Generated<number | null>;
  /** Extension (migration 029): when the gallery closes to visitors (ISO 8601 UTC); null: never. */
  expires_at: Generated<string | null>;
  /** The expires_at its clients were reminded of (migration 029); null: none yet. */
  expiry_reminded_for: Generated<string | null>;
  /** Extension (migration 033): the PIN asked before a download (4–8 digits); null: none. */
  download_pin: Generated<string | null>;
  /** Extension (migration 033): photos each client may download here; null: no limit. */
  download_limit: Generated<number | null>;
  /** Extension (migration 033): 'web' or 'original'; null: original. */
  download_size: Generated<string | null>;
  /** Extension (migration 037): 'on', 'off'; null: on in client galleries, off in public ones. */
  favourites: Generated<string | null>;
  /** Extension (migration 037): the named lists offered to clients, one a line; null: none. */
  favourite_lists: Generated<string | null>;
  published_at: string;
  created_at: string;
  updated_at: string;
}

export interface GalleryAclTable {
  gallery_id: number;
  position: number;
  email: string;
  can_read: Generated<number>;
  comp_download: Generated<number>;
  hires_download: Generated<number>;
  created_at: string;
}

export interface MediasTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  artist_id: number;
  status: Generated<string>;
  file_name: string;
  file_size: number | null;
  mime_type: string | null;
  storage_key: string | null;
  title: string | null;
  description: string | null;
  location: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  region: string | null;
  author: string | null;
  copyright: string | null;
  model_release: Generated<number>;
  property_release: Generated<number>;
  artist_rating: number | null;
  shot_at: string | null;
  watermark_id: number | null;
  width: number | null;
  height: number | null;
  /** none, pending, ready or failed (migration 007). */
  renditions_state: Generated<string>;
  renditions_error: string | null;
  /** WGS 84 degrees, both or neither (migration 009). */
  latitude: number | null;
  longitude: number | null;
  /** The licence's address (migration 009). */
  license: string | null;
  /** The image's text alternative, an extension (migration 030). */
  alt_text: string | null;
  /** The file's camera, lens and exposure as JSON (CameraFacts, src/uploads/file-metadata.ts; migration 036). */
  camera: string | null;
  /** Which fields a file may fill a client has set: bits of src/media/file-fields.ts (migration 009). */
  client_meta: Generated<number>;
  /** What the studio's uploads skip a duplicate by (migration 017; src/uploads/probe.ts); null for files from the API. */
  content_probe: string | null;
  created_at: string;
  updated_at: string;
}

export interface MediaKeywordsTable {
  media_id: number;
  position: number;
  keyword: string;
}

export interface MediaGalleriesTable {
  gallery_id: number;
  media_id: number;
  position: number;
  published_at: string;
}

export interface DownloadTalliesTable {
  gallery_id: number;
  client_key: string;
  count: Generated<number>;
  updated_at: string;
}

export interface DownloadLedgerTable {
  gallery_id: number;
  client_key: string;
  media_id: number;
  at: string;
}

export interface LightboxMediasTable {
  lightbox_id: number;
  media_id: number;
  position: number;
  /** Favourites (migration 014): the client's note and when the photo was picked. */
  note: Generated<string | null>;
  picked_at: Generated<string | null>;
  /** Migration 037: the client's named lists this pick is in, one a line; null: none. */
  lists: Generated<string | null>;
}

export interface MediaPricingProfilesTable {
  media_id: number;
  pricing_profile_id: number;
}

export interface MediaGroupsTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  artist_id: number | null;
  /** 'collection' | 'smart' */
  kind: string;
  name: string;
  /** Smart collections: the rules as JSON (src/groups/rules.ts). */
  rules: string | null;
  created_at: string;
  updated_at: string;
}

export interface MediaGroupMediasTable {
  group_id: number;
  media_id: number;
  position: number;
}

export interface JobsTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  kind: string;
  /** 'queued' | 'running' | 'done' | 'failed' */
  state: Generated<string>;
  payload: string;
  total: Generated<number>;
  /** Items of the payload already done (moves with each chunk's work). */
  cursor: Generated<number>;
  processed: Generated<number>;
  failed: Generated<number>;
  errors: Generated<string>;
  attempts: Generated<number>;
  locked_by: string | null;
  locked_until: string | null;
  /** 0: interactive, 1: background (src/jobs/lanes.ts). */
  lane: Generated<number>;
  /** Claim order within the lane: owners take turns (src/jobs/repository.ts, enqueue). */
  turn: Generated<number>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface UploadsTable {
  id: Generated<number>;
  media_id: number;
  location: string;
  storage_key: string;
  file_name: string;
  declared_size: number;
  declared_mime: string;
  expires_at: string;
  created_at: string;
  /** Migration 021: the media's owner (the open uploads an account's quota counts). */
  owner_id: number | null;
}

/** The studio's tus uploads (migration 017): see src/uploads/resumable.ts. */
export interface ResumableUploadsTable {
  id: string;
  owner_id: number;
  gallery_uuid: string | null;
  file_name: string;
  file_size: number;
  state: 'receiving' | 'processing' | 'done' | 'duplicate' | 'refused';
  media_uuid: string | null;
  reason: string | null;
  claimed_at: string | null;
  expires_at: string;
  created_at: string;
}

/** Stored files to remove (migration 005): see src/file-storage/file-deletions.ts. */
export interface FileDeletionsTable {
  id: Generated<number>;
  storage_key: string;
  created_at: string;
  /** Not removed before this: now for garbage, later for a file not yet published. */
  due_at: string;
}

export interface RenditionsTable {
  id: Generated<number>;
  media_id: number;
  /** Long edge in pixels ('320' … '3840'), or 'poster'. */
  name: string;
  width: number;
  height: number;
  mime_type: string;
  storage_key: string;
  bytes: number;
  watermarked: Generated<number>;
  created_at: string;
}

/** Sign-in links of website visitors (migration 008). */
export interface VisitorLinksTable {
  id: Generated<number>;
  /** SHA-256 of the token, base64url: the token itself is never stored. */
  token_hash: string;
  website_id: number;
  /** Lower-cased. */
  email: string;
  /** Where the visitor goes once signed in: a path under the website's home. */
  back: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** What known clients did (migration 015, docs/delivery.md "Activity"). */
export interface ActivityEventsTable {
  id: Generated<number>;
  owner_id: number;
  gallery_id: number;
  /** Lower-cased. */
  client_email: string;
  /** 1: proven by a sign-in link; 0: given in a form, not proven. */
  client_verified: number;
  kind: string;
  media_id: number | null;
  /** A bigint: a string on PostgreSQL. */
  bytes: number | string | null;
  at: string;
}

/** What anonymous visitors did, counted per gallery, day (UTC) and kind (migration 015). */
export interface ActivityDailyTable {
  gallery_id: number;
  day: string;
  kind: string;
  count: Generated<number | string>;
  bytes: Generated<number | string>;
}

/** Migration 025 (docs/shop.md "Orders"): a website's tax and manual-payment instructions. */
export interface ShopSettingsTable {
  website_id: number;
  tax_rate_bp: Generated<number>;
  tax_included: Generated<number>;
  manual_instructions: string | null;
  /** Migration 032: what the tax is called on receipts ("VAT"); null: "Tax". */
  tax_label: string | null;
  /** Migration 032: the terms of sale (Markdown); null: none, checkout asks for no acceptance. */
  terms: string | null;
}

export interface CouponsTable {
  id: Generated<number>;
  owner_id: number;
  website_id: number | null;
  code: string;
  kind: string;
  value: number;
  currency: string | null;
  valid_from: string | null;
  valid_until: string | null;
  usage_limit: number | null;
  times_used: Generated<number>;
  created_at: string;
  /** Migration 032: the API's address of the coupon. */
  uuid: string;
  active: Generated<number>;
  updated_at: string | null;
}

export interface CartsTable {
  id: Generated<number>;
  uuid: string;
  website_id: number;
  coupon_code: string | null;
  created_at: string;
  updated_at: string;
}

export interface CartItemsTable {
  id: Generated<number>;
  cart_id: number;
  media_id: number;
  profile_id: number;
  item_label: string;
  option_label: string | null;
  quantity: number;
}

/** Bigint columns read back as strings on PostgreSQL. */
type Big = number | string;

export interface OrdersTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  website_id: number | null;
  email: string;
  name: string | null;
  status: string;
  currency: string;
  subtotal: Big;
  discount: Big;
  tax: Big;
  tax_rate_bp: number;
  tax_included: number;
  total: Big;
  coupon_code: string | null;
  created_at: string;
  updated_at: string;
  paid_at: string | null;
  /** Migration 032: the tax's label as sold, the coupon used (its uses are counted), when the terms were accepted. */
  tax_label: string | null;
  coupon_id: number | null;
  terms_accepted_at: string | null;
  download_token: string | null;
  downloads_expire_at: string | null;
  delivered_at: string | null;
  /** Migration 031: the postal address of an order with prints, its shipping, its lab sheet. */
  ship_name: Generated<string | null>;
  ship_line1: Generated<string | null>;
  ship_line2: Generated<string | null>;
  ship_postcode: Generated<string | null>;
  ship_city: Generated<string | null>;
  ship_country: Generated<string | null>;
  tracking_url: Generated<string | null>;
  shipped_at: Generated<string | null>;
  lab_sent_at: Generated<string | null>;
}

export interface OrderItemsTable {
  id: Generated<number>;
  order_id: number;
  position: number;
  media_id: number | null;
  media_uuid: string;
  media_file_name: string | null;
  profile_uuid: string;
  kind: string;
  label: string;
  option_label: string | null;
  long_edge: number | null;
  unit_price: number;
  quantity: number;
  total: Big;
  file_key: string | null;
  file_type: string | null;
  file_bytes: Big | null;
  /** Migration 031: a whole gallery's item. */
  gallery_id: Generated<number | null>;
}

export interface PaymentsTable {
  id: Generated<number>;
  order_id: number;
  provider: string;
  kind: string;
  reference: string | null;
  amount: Big;
  currency: string;
  created_at: string;
}

/** Migration 026: a photographer's provider secrets, encrypted (src/payments/secrets.ts). */
export interface PaymentAccountsTable {
  owner_id: number;
  provider: string;
  secret_key: string;
  webhook_secret: string;
  webhook_token: string;
  created_at: string;
  updated_at: string;
}

/** Migration 035: signed webhooks (docs/integrations.md "Webhooks"). */
/** Share links per recipient (migration 040): only the token's SHA-256 is kept. */
export interface ShareLinksTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  /** The link's target (migration 041): a gallery or a lightbox, exactly one of them. */
  gallery_id: number | null;
  token_hash: string;
  recipient: string | null;
  expires_at: string | null;
  max_views: number | null;
  views: Generated<number>;
  password_hash: string | null;
  download: string;
  created_at: string;
  revoked_at: string | null;
  lightbox_id: Generated<number | null>;
  /** A lightbox's link: the owner's website it is shown on (a gallery's link: its gallery's, null here). */
  website_id: Generated<number | null>;
  /** Files downloaded through the link (migration 041). */
  downloads: Generated<number>;
}

export interface WebhookEndpointsTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  url: string;
  events: string;
  description: string | null;
  secret: string;
  enabled: number;
  failing_since: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  id: Generated<number>;
  uuid: string;
  owner_id: number;
  type: string;
  payload: string;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  uuid: string;
  endpoint_id: number;
  event_id: number;
  state: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_status: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export interface Database {
  activity_events: ActivityEventsTable;
  activity_daily: ActivityDailyTable;
  users: UsersTable;
  apps: AppsTable;
  sessions: SessionsTable;
  websites: WebsitesTable;
  website_pages: WebsitePagesTable;
  website_hero: WebsiteHeroTable;
  website_featured: WebsiteFeaturedTable;
  website_members: WebsiteMembersTable;
  artists: ArtistsTable;
  display_styles: DisplayStylesTable;
  watermarks: WatermarksTable;
  pricing_profiles: PricingProfilesTable;
  pricing_profile_items: PricingProfileItemsTable;
  pricing_profile_options: PricingProfileOptionsTable;
  lightboxes: LightboxesTable;
  galleries: GalleriesTable;
  gallery_acl: GalleryAclTable;
  medias: MediasTable;
  media_keywords: MediaKeywordsTable;
  media_galleries: MediaGalleriesTable;
  lightbox_medias: LightboxMediasTable;
  download_tallies: DownloadTalliesTable;
  download_ledger: DownloadLedgerTable;
  media_pricing_profiles: MediaPricingProfilesTable;
  media_groups: MediaGroupsTable;
  media_group_medias: MediaGroupMediasTable;
  jobs: JobsTable;
  uploads: UploadsTable;
  resumable_uploads: ResumableUploadsTable;
  file_deletions: FileDeletionsTable;
  renditions: RenditionsTable;
  visitor_links: VisitorLinksTable;
  media_stamps: MediaStampsTable;
  change_log: ChangeLogTable;
  user_invitations: UserInvitationsTable;
  login_origins: LoginOriginsTable;
  shop_settings: ShopSettingsTable;
  coupons: CouponsTable;
  carts: CartsTable;
  cart_items: CartItemsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  payments: PaymentsTable;
  payment_accounts: PaymentAccountsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  invitation_deliveries: InvitationDeliveriesTable;
  share_links: ShareLinksTable;
  print_labs: PrintLabsTable;
  gallery_sales: GallerySalesTable;
  cart_galleries: CartGalleriesTable;
  order_files: OrderFilesTable;
}

/** Migration 031: a photographer's print lab (docs/shop.md "Labs"). */
export interface PrintLabsTable {
  owner_id: number;
  email: string;
  auto: number;
  updated_at: string;
}

/** Migration 031: a gallery sold whole at one download item of a price list. */
export interface GallerySalesTable {
  gallery_id: number;
  profile_id: number;
  item_label: string;
  price: number;
  updated_at: string;
}

export interface CartGalleriesTable {
  id: Generated<number>;
  cart_id: number;
  gallery_id: number;
}

/** Migration 031: the files a whole gallery's item delivers, one per media. */
export interface OrderFilesTable {
  id: Generated<number>;
  order_id: number;
  item_id: number;
  position: number;
  media_uuid: string;
  media_file_name: string | null;
  file_key: string;
  file_type: string;
  file_bytes: Big;
}

/** Migration 038: what became of each invitation's mail (src/invitations/repository.ts). */
export interface InvitationDeliveriesTable {
  id: Generated<number>;
  gallery_id: number;
  email: string;
  state: 'queued' | 'sent' | 'failed' | 'not_mailed';
  code: string | null;
  queued_at: string;
  settled_at: string | null;
}

/** Per owner: moved by triggers whenever a list scope of the owner's medias may have changed (migration 010). */
export interface MediaStampsTable {
  owner_id: number;
  stamp: number;
  /** Moved by triggers when a field or keyword a smart rule reads changes, which `stamp` does not follow (migration 019). */
  rule_stamp: Generated<number>;
  /** Migration 021: the bytes of the owner's stored originals, kept by triggers. */
  stored_bytes: Generated<number>;
}

// Row types: what a select of every column of each table gives.
export type UserRow = Selectable<UsersTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type ShareLinkRow = Selectable<ShareLinksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
export type AppRow = Selectable<AppsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type WebsiteRow = Selectable<WebsitesTable>;
export type ArtistRow = Selectable<ArtistsTable>;
export type DisplayStyleRow = Selectable<DisplayStylesTable>;
export type WatermarkRow = Selectable<WatermarksTable>;
export type PricingProfileRow = Selectable<PricingProfilesTable>;
export type LightboxRow = Selectable<LightboxesTable>;
export type GalleryRow = Selectable<GalleriesTable>;
export type GalleryAclRow = Selectable<GalleryAclTable>;
export type MediaRow = Selectable<MediasTable>;
export type GroupRow = Selectable<MediaGroupsTable>;
export type JobRow = Selectable<JobsTable>;
export type PendingUploadRow = Selectable<UploadsTable>;
export type ResumableUploadRow = Selectable<ResumableUploadsTable>;
export type FileDeletionRow = Selectable<FileDeletionsTable>;
export type RenditionRow = Selectable<RenditionsTable>;
export type VisitorLinkRow = Selectable<VisitorLinksTable>;
export type WebsitePageRow = Selectable<WebsitePagesTable>;

/** The change feed (migration 028): one row per object of an owner, its latest action; moved by triggers. */
export interface ChangeLogTable {
  seq: Generated<number>;
  owner_id: number;
  /** media | gallery | collection | lightbox */
  kind: string;
  uuid: string;
  /** created | updated | deleted */
  action: string;
  at: string;
  /** PostgreSQL: the writing transaction's id (xid8, read as text); SQLite: 0. */
  xid: Generated<string | number>;
}
