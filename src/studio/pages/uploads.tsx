// The upload screen: a gallery to upload into, a drop zone for files and folders, the file
// pickers (the camera roll on a phone), and the list of files with their progress and state.
// Uploading is the script's (browser/uploads.js: tus, resumable); without JavaScript the page
// says so, since a plain form could neither resume nor show progress.
import { studioScript, TUS_CLIENT } from '../assets.js';
import { humanBytes, type QuotaState } from '../../uploads/quota.js';
import { html, Layout, type Viewer } from './layout.js';

export interface GalleryChoice {
  uuid: string;
  website: string;
  name: string;
  path: string;
}

const UPLOADS_JS = studioScript('uploads');

export function uploadPage(p: { viewer: Viewer; galleries: GalleryChoice[]; selected?: string; usage: QuotaState }): string {
  const byWebsite = new Map<string, GalleryChoice[]>();
  for (const g of p.galleries) byWebsite.set(g.website, [...(byWebsite.get(g.website) ?? []), g]);
  return html(
    <Layout title="Upload" viewer={p.viewer} scripts={[TUS_CLIENT, UPLOADS_JS]}>
      <h1>Upload photos and videos</h1>
      <StorageUse usage={p.usage} />
      <noscript>
        <p class="alert">Uploading needs JavaScript: it sends large files in pieces, shows their progress and resumes after a dropped connection.</p>
      </noscript>
      <div class="card up-setup">
        <div class="field">
          <label for="up-gallery">Add to gallery</label>
          <select id="up-gallery" name="gallery">
            <option value="">None: the library only</option>
            {[...byWebsite].map(([website, galleries]) => (
              <optgroup label={website}>
                {galleries.map((g) => (
                  <option value={g.uuid} selected={g.uuid === p.selected}>
                    {g.name} ({g.path ? `/${g.path}` : '/'})
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div id="up-drop" class="up-drop">
          <p class="up-drop-text">Drop photos, videos or whole folders here</p>
          <p class="row up-pickers">
            <input id="up-files" class="up-input" type="file" accept="image/*,video/*" multiple />
            <label class="button" for="up-files">
              Choose photos or videos
            </label>
            {/* A folder's files (desktop browsers; phones have none to offer); the attribute is not in Preact's types. */}
            <span class="up-folder-pick">
              <input id="up-folder" class="up-input" type="file" multiple {...{ webkitdirectory: '' }} />
              <label class="button up-quiet" for="up-folder">
                Choose a folder
              </label>
            </span>
          </p>
          <p class="muted up-hint">Files already in your library are skipped. Uploads resume after a lost connection; after a reload, choose the same files again to resume them.</p>
        </div>
      </div>
      <section id="up-progress" class="card up-progress" aria-labelledby="up-overall-label" hidden>
        <div class="up-overall">
          <span id="up-overall-label">All files</span>
          <progress id="up-overall" max={100} value={0} aria-labelledby="up-overall-label" aria-describedby="up-summary"></progress>
          <span id="up-summary" class="muted" role="status"></span>
        </div>
        {/* Focusable: a keyboard scrolls the list (it scrolls on its own beyond 60% of the screen). */}
        <ul id="up-queue" class="up-queue" aria-label="Files" tabIndex={0}></ul>
      </section>
    </Layout>,
  );
}

/** What the account stores (and is uploading) against its quota: the rule of docs/security.md, Storage quota. */
function StorageUse({ usage }: { usage: QuotaState }) {
  if (usage.quota === null) return <p class="muted up-storage">Storage used: {humanBytes(usage.used)} (no quota).</p>;
  const percent = usage.quota === 0 ? 100 : Math.min(100, Math.round((usage.used / usage.quota) * 100));
  return (
    <p class={usage.used >= usage.quota ? 'alert up-storage' : 'muted up-storage'}>
      Storage used: {humanBytes(usage.used)} of {humanBytes(usage.quota)} ({percent}%), counting files being uploaded.
      {usage.used >= usage.quota ? ' Your storage is full: delete medias, or ask the service for more room, before uploading more.' : ''}
    </p>
  );
}
