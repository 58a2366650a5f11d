// The export of everything a tenant holds, for a DATA_DUMP support request (GDPR articles 15 and
// 20): one tar archive (tar-stream) with
//   resources/<kind>/<id>/latest.json    the latest envelope, as the API shows it (drafts' values and
//                                        DIDComm recipients opened)
//   resources/<kind>/<id>/history.json   every revision, oldest first
//   resources/<kind>/<id>/content        the content (credential, file, presentation), opened with
//                                        its blob's data key
//   connector/offers.json                credential offers: what is kept of them, the claims are not
//                                        (destroyed with their data key when the flow ended)
//   connector/presentation-requests.json presentation requests, without disclosed claims (likewise)
//   support-requests.json                the tenant's support requests, messages opened
//   manifest.json                        last: every other file with its size and SHA-256
// Content that was erased (its blob's key destroyed: deleted past the restore window) is listed in
// the manifest's `erased`.
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { isLeft } from 'fp-ts/lib/Either.js';
import { pack } from 'tar-stream';
import { listTenantOffers } from '../../projections/offers.js';
import { listTenantPresentationSessions } from '../../projections/presentations.js';
import { findHistory, findTenantResources } from '../../projections/resources.js';
import { listSupportRequests } from '../../projections/supportRequests.js';
import { CREDENTIAL_KIND } from '../../streams/credential.js';
import { DIDCOMM_KIND } from '../../streams/didcommMessage.js';
import { DRAFT_KIND } from '../../streams/draft.js';
import { FILE_KIND } from '../../streams/file.js';
import type { Envelope } from '../../streams/resource.js';
import { PRESENTATION_KIND } from '../../streams/verifiablePresentation.js';
import type { Json } from '../eventstore/port.js';
import type { Sqlite } from '../sqlite/connection.js';
import type { BlobPurpose } from '../../streams/blob.js';
import { blobOfResource, openBlob, type BlobContentDeps } from './blobContent.js';
import { didcommKind } from './didcommMessages.js';
import { draftsKind } from './drafts.js';
import { wireEnvelope } from './envelope.js';
import type { ApiLine } from './oasVersion.js';
import { supportRequestView } from './supportRequestView.js';
import { settingsKind } from './replaceSettings.js';

export const EXPORT_FORMAT = 'eudi-connector-tenant-export/1';

/** The read models (caught up with the store) and the sealed blobs with their data keys. */
export interface ExportSources extends BlobContentDeps {
  readonly db: Sqlite;
}

export interface ManifestEntry {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

export interface TenantExport {
  readonly archive: Buffer;
  readonly manifest: { readonly files: readonly ManifestEntry[] };
  /** SHA-256 (hex) of manifest.json as archived. */
  readonly manifestDigest: string;
}

/** The kinds whose content is a blob, and the blob's purpose. */
const WITH_CONTENT: ReadonlyMap<string, BlobPurpose> = new Map([
  [CREDENTIAL_KIND.name, 'credential'],
  [FILE_KIND.name, 'file'],
  [PRESENTATION_KIND.name, 'presentation'],
]);

/** The plaintext of a resource's content; undefined once erased. */
const contentOf = async (content: BlobContentDeps, purpose: BlobPurpose, resourceId: string): Promise<Buffer | undefined> => {
  const blobId = await blobOfResource(content.store, purpose, resourceId);
  if (blobId === undefined) throw new Error(`${purpose} ${resourceId} names no blob`);
  const opened = await openBlob(content, blobId);
  return isLeft(opened) ? undefined : buffer(opened.right);
};

/** Drafts are shown as the current API line shows them: no request header chooses another. */
const CURRENT_API_LINE: ApiLine = '0.40';

const json = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');

export const buildTenantExport = async (sources: ExportSources, tenantId: string, about: { readonly requestId: string; readonly at: string }): Promise<TenantExport> => {
  const renderers: Readonly<Record<string, (envelope: Envelope) => Promise<Envelope>>> = {
    [DRAFT_KIND.name]: (e) => draftsKind(sources).render!(e, CURRENT_API_LINE),
    [DIDCOMM_KIND.name]: (e) => didcommKind({ dataKeys: sources.dataKeys, runner: { db: sources.db } }).render!(e, CURRENT_API_LINE),
    // The sealed callback secret stays in the store, as the API never answers it either.
    [settingsKind.name]: (e) => settingsKind.render!(e, CURRENT_API_LINE),
  };
  const shown = async (e: Envelope): Promise<Json> => wireEnvelope(await (renderers[e.kind.name]?.(e) ?? Promise.resolve(e)));
  const files: { path: string; bytes: Buffer }[] = [];
  const erased: string[] = [];

  for (const latest of findTenantResources(sources.db, tenantId)) {
    const base = `resources/${latest.kind.name}/${latest.id}`;
    files.push({ path: `${base}/latest.json`, bytes: json(await shown(latest)) });
    const history = findHistory(sources.db, { tenantId, kind: latest.kind.name, id: latest.id });
    files.push({ path: `${base}/history.json`, bytes: json({ items: await Promise.all(history.map(shown)) }) });
    const purpose = WITH_CONTENT.get(latest.kind.name);
    if (purpose !== undefined) {
      const content = await contentOf(sources, purpose, latest.id);
      if (content) files.push({ path: `${base}/content`, bytes: content });
      else erased.push(`${base}/content`);
    }
  }
  files.push({ path: 'connector/offers.json', bytes: json({ items: listTenantOffers(sources.db, tenantId) }) });
  files.push({ path: 'connector/presentation-requests.json', bytes: json({ items: listTenantPresentationSessions(sources.db, tenantId) }) });
  const requests = await Promise.all(listSupportRequests(sources.db, { tenantId }).map((row) => supportRequestView(sources.dataKeys, row)));
  files.push({ path: 'support-requests.json', bytes: json({ items: requests }) });

  const entries = files.map(({ path, bytes }) => ({ path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }));
  const manifest = { format: EXPORT_FORMAT, tenant_id: tenantId, support_request_id: about.requestId, created_at: about.at, files: entries, erased };
  const manifestBytes = json(manifest);

  const archive = pack();
  const done = buffer(archive);
  const mtime = new Date(about.at);
  for (const { path, bytes } of [...files, { path: 'manifest.json', bytes: manifestBytes }]) {
    await new Promise<void>((resolve, reject) => archive.entry({ name: path, size: bytes.length, mtime, mode: 0o600 }, bytes, (err) => (err ? reject(err) : resolve())));
  }
  archive.finalize();
  return { archive: await done, manifest: { files: entries }, manifestDigest: createHash('sha256').update(manifestBytes).digest('hex') };
};
