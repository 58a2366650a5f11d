// Code inside the edges answers typed errors (fp-ts Either), which only the routes turn into
// problems: reading an uploaded credential, choosing a draft's schema, creating an offer. Each
// refusal is a value naming what is wrong, and a refused offer writes nothing.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { isRight } from 'fp-ts/lib/Either.js';
import { offerStream } from '../streams/offer.js';
import { fileKek } from '../src/crypto/kek.js';
import { dataKeys } from '../src/crypto/dataKeys.js';
import type { CommandError } from '../src/eventstore/handle.js';
import { createOffer, type CreateOfferDeps } from '../src/issuance/offer/createOffer.js';
import { DEFAULT_CONFIGURATIONS, parseCredentialConfigurations } from '../src/issuance/configurations.js';
import { issuanceSecrets } from '../src/issuance/secrets.js';
import { metaSchemaOf } from '../src/resources/createDraft.js';
import { readCredential } from '../src/resources/verifiableCredential.js';
import { createApiKey, createTenant, deleteApiKey } from '../src/tenancy/commands.js';
import { leftOf, rightOf } from './support/either.js';
import { withStoreDir } from './support/readmodels.js';

const bytes = (value: unknown): Buffer => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');

test('an uploaded blob that is not JSON is NotJson, saying what it is instead', (t) => {
  t.like(leftOf(readCredential(bytes('not json'))), { _tag: 'NotJson' });
});

test('an uploaded JSON document that is no credential is InvalidCredential, each failure located in the blob', (t) => {
  const refused = leftOf(readCredential(bytes({ '@context': ['https://example.com'], type: 'Thing' })));
  if (refused._tag !== 'InvalidCredential') return t.fail(refused._tag);
  t.true(refused.errors.length > 0);
  t.true(refused.errors.every((e) => e.location.startsWith('blob')));
  t.true(refused.errors.some((e) => e.location === 'blob.credentialSubject'));
});

test('an uploaded credential is read', (t) => {
  const vc = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'], credentialSubject: { name: 'x' } };
  t.true(isRight(readCredential(bytes(vc))));
});

const published = (url: string): boolean => url === 'https://schemas.example/published';

test('a 0.40 draft names exactly one of schema and meta_schema, and a meta_schema the tenant published', (t) => {
  t.deepEqual(leftOf(metaSchemaOf('0.40', {}, published)), { _tag: 'SchemaChoice' });
  t.deepEqual(leftOf(metaSchemaOf('0.40', { meta_schema: 'https://schemas.example/published', schema: { schema: {} } }, published)), { _tag: 'SchemaChoice' });
  t.deepEqual(leftOf(metaSchemaOf('0.40', { meta_schema: 'https://schemas.example/other' }, published)), { _tag: 'UnpublishedMetaSchema' });
  t.is(rightOf(metaSchemaOf('0.40', { meta_schema: 'https://schemas.example/published' }, published)), 'https://schemas.example/published');
  t.is(rightOf(metaSchemaOf('0.40', { schema: { schema: {} } }, published)), null);
  t.is(rightOf(metaSchemaOf('0.38', { schema: {} }, published)), null);
});

const configurations = new Map(parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'defaults').map((c) => [c.id, c]));
const membership = { member_number: 'M-1', given_name: 'Ada', family_name: 'Lovelace' };

test('an offer of an unconfigured configuration, or with claims it does not accept, is refused and writes nothing', async (t) => {
  await withStoreDir('typed-errors-', async (_dir, store) => {
    const kek = randomBytes(32);
    const deps: CreateOfferDeps = { store, dataKeys: dataKeys(store, fileKek(kek)), secrets: issuanceSecrets(kek), issuer: { identifier: 'https://issuer.example', recorded: undefined, configurations, revisionOf: () => undefined }, now: () => new Date(), offerTtlSeconds: 600 };
    const offer = (credential_configuration_id: string, claims: unknown) => createOffer(deps, 'tenant-1', { credential_configuration_id, claims }, { actor: 'test' });

    t.deepEqual(leftOf(await offer('no-such-configuration', membership)), { _tag: 'UnknownCredentialConfiguration', id: 'no-such-configuration' });
    const invalid = leftOf(await offer('membership', { given_name: 'Ada' }));
    if (invalid._tag !== 'InvalidClaims') return t.fail(invalid._tag);
    t.true(invalid.errors.some((e) => e.location === 'body.claims.member_number'));
    t.deepEqual(await store.readAll({ maxCount: 1 }), [], 'nothing written');

    const created = rightOf(await offer('membership', membership));
    t.is(created.credentialConfigurationId, 'membership');
    t.is(created.txCode, undefined);
    const read = await store.readStream(offerStream(created.offerId));
    t.is(read._tag, 'Found');
  });
});

test('a switch over a command error that leaves a kind unmapped does not compile', (t) => {
  type Failed = CommandError<{ readonly _tag: 'Refused' }, { readonly _tag: 'HookRefused' }>;
  // @ts-expect-error a switch on `kind` without `hook` and without `default` lacks its ending return
  const answer = (failed: Failed): string => { switch (failed.kind) { case 'domain': return 'domain'; case 'store': return 'store'; } };
  // At run time the unmapped kind falls through the switch: the answer typed a string is none.
  t.is(typeof answer({ kind: 'hook', error: { _tag: 'HookRefused' } }), 'undefined');
  const mapped = (failed: Failed): string => {
    switch (failed.kind) {
      case 'domain':
      case 'hook':
        return failed.error._tag;
      case 'store':
        return 'store';
    }
  };
  t.is(mapped({ kind: 'hook', error: { _tag: 'HookRefused' } }), 'HookRefused');
});

test('tenancy commands answer the command handler\'s tagged errors, each refusal of the decider as domain', async (t) => {
  await withStoreDir('typed-errors-', async (_dir, store) => {
    const metadata = { actor: 'test' };
    const tenantId = rightOf(await createTenant(store, { name: 'a' }, metadata)).tenantId;
    t.like(leftOf(await createTenant(store, { name: 'a again', tenantId }, metadata)), { kind: 'domain', error: { _tag: 'TenantExists', tenantId } });
    const missing = randomUUID();
    t.deepEqual(leftOf(await createApiKey(store, { tenantId: missing, scopes: ['resources'], expiration: null }, metadata)), { kind: 'domain', error: { _tag: 'TenantNotFound', tenantId: missing } });
    const keyId = rightOf(await createApiKey(store, { tenantId, scopes: ['resources'], expiration: null }, metadata)).keyId;
    t.like(leftOf(await createApiKey(store, { tenantId, keyId, scopes: ['resources'], expiration: null }, metadata)), { kind: 'domain', error: { _tag: 'ResourceExists' } });
    rightOf(await deleteApiKey(store, keyId, metadata));
    t.like(leftOf(await deleteApiKey(store, keyId, metadata)), { kind: 'domain', error: { _tag: 'Conflict', reason: 'deleted' } });
    t.like(leftOf(await deleteApiKey(store, randomUUID(), metadata)), { kind: 'domain', error: { _tag: 'ApiKeyNotFound' } });
  });
});
