// The offer decider in given / when / then form: the events an offer stream already holds, a
// command, and the events it decides (or the rejection). One test per row of the issuance state
// table (the connector specification, "States and transitions") and per refusal of a token or
// credential request.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, madeAt, offerAtIssuer, OfferEvent, type AttestedWallet, type Command } from '../streams/offer.js';
import { rightOf } from './support/either.js';
import { givenWhen, stateAfter } from './support/decider.js';

const ID = 'offer-1';
const TENANT = 'tenant-1';
const T0 = '2026-05-01T10:00:00.000Z';
const T1 = '2026-05-01T10:01:00.000Z';
const T2 = '2026-05-01T10:02:00.000Z';
const EXPIRES = '2026-05-01T10:05:00.000Z';
const LATER = '2026-05-01T10:06:00.000Z';
const claims = { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'ct', tag: 'tag' };
const TX_HASH = Buffer.from('right code mac').toString('base64url');
const WRONG_HASH = Buffer.from('wrong code mac').toString('base64url');
const TOKEN_HASH = Buffer.from('access token hash').toString('base64url');
const OTHER_TOKEN_HASH = Buffer.from('another token hash').toString('base64url');
const txCode = { input_mode: 'numeric' as const, length: 6, description: null, hash: TX_HASH };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const create = (withTxCode = false): Command => ({
  type: 'CreateOffer',
  data: { offerId: ID, tenantId: TENANT, credentialConfigurationId: 'pid', claims, txCode: withTxCode ? txCode : null, expiresAt: EXPIRES, at: T0 },
});
const created = (withTxCode = false): OfferEvent => ({
  type: 'OfferCreated',
  data: {
    offerId: ID, tenantId: TENANT, credentialConfigurationId: 'pid', claims, txCode: withTxCode ? txCode : null,
    createdAt: T0, expiresAt: EXPIRES,
  },
});
const redeem = (txCodeHash: string | undefined, at = T1, wallet?: AttestedWallet): Command => ({
  type: 'RedeemPreAuthorizedCode',
  data: { offerId: ID, txCodeHash, accessTokenHash: TOKEN_HASH, dpopJkt: 'jkt', wallet, maxTxCodeAttempts: 3, at },
});
const redeemed = (at = T1): OfferEvent => ({ type: 'PreAuthorizedCodeRedeemed', data: { accessTokenHash: TOKEN_HASH, dpopJkt: 'jkt', redeemedAt: at, expiresAt: EXPIRES } });
const rejected = (attempt: number, at = T1): OfferEvent => ({ type: 'TxCodeRejected', data: { attempt, rejectedAt: at } });
const issue = (accessTokenHash = TOKEN_HASH, at = T2): Command => ({ type: 'IssueCredential', data: { offerId: ID, accessTokenHash, at } });
const offer = { offerId: ID, tenantId: TENANT };
const issued: OfferEvent = { type: 'CredentialIssued', data: { ...offer, issuedAt: T2 } };
const fail: Command = { type: 'FailOffer', data: { offerId: ID, errorDetails: 'claims unavailable', at: T2 } };
const failed = (errorDetails = 'claims unavailable', at = T2): OfferEvent => ({
  type: 'OfferFailed',
  data: { ...offer, errorDetails, failedAt: at },
});
const expire = (at: string): Command => ({ type: 'ExpireOffer', data: { offerId: ID, at } });
const expired: OfferEvent = { type: 'OfferExpired', data: { ...offer, expiredAt: EXPIRES } };
const purge: Command = { type: 'PurgeClaims', data: { offerId: ID, at: LATER } };
const purged: OfferEvent = { type: 'ClaimsPurged', data: { purgedAt: LATER } };

test('given nothing, when an offer is created, then OfferCreated; given it, then OfferExists', (t) => {
  t.deepEqual(scenario([], create()), right([created()]));
  t.like(stateOf([created()]), { status: 'OFFER_CREATED', grant: { grant: 'pre-authorized_code', phase: 'offered', txCodeFailures: 0 } });
  t.deepEqual(scenario([created()], create()), left({ _tag: 'OfferExists', offerId: ID }));
});

test('given an open offer, when its code is redeemed before it expires, then PreAuthorizedCodeRedeemed, the token living as long as the offer', (t) => {
  t.deepEqual(scenario([created()], redeem(undefined)), right([redeemed()]));
  t.deepEqual(scenario([created(true)], redeem(TX_HASH)), right([redeemed()]));
  t.deepEqual(scenario([created(true), rejected(1)], redeem(TX_HASH, T2)), right([redeemed(T2)]));
});

test('given an open offer, when a wallet that sent its attestation redeems the code, then PreAuthorizedCodeRedeemed records which wallet (no secret)', (t) => {
  const wallet: AttestedWallet = { clientId: 'wallet-1', walletProvider: 'https://wallet-provider.example', walletProviderCertificate: 'CN=Test Wallet Provider', walletName: 'Wallet', keyThumbprint: 'thumb' };
  t.deepEqual(scenario([created()], redeem(undefined, T1, wallet)), right([{ type: 'PreAuthorizedCodeRedeemed', data: { accessTokenHash: TOKEN_HASH, dpopJkt: 'jkt', wallet, redeemedAt: T1, expiresAt: EXPIRES } }]));
  t.deepEqual(scenario([created()], redeem(undefined)), right([redeemed()]), 'without an attestation, no wallet field');
});

test('given an offer, when its code is redeemed unknown, ended, expired or a second time, then refused', (t) => {
  t.deepEqual(scenario([], redeem(undefined)), left({ _tag: 'OfferNotFound', offerId: ID }));
  t.deepEqual(scenario([created(), redeemed(), issued], redeem(undefined)), left({ _tag: 'OfferEnded', offerId: ID, status: 'ISSUED' }));
  t.deepEqual(scenario([created(), expired], redeem(undefined)), left({ _tag: 'OfferEnded', offerId: ID, status: 'EXPIRED' }));
  t.deepEqual(scenario([created()], redeem(undefined, EXPIRES)), left({ _tag: 'OfferHasExpired', offerId: ID }));
  t.deepEqual(scenario([created(), redeemed()], redeem(undefined, T2)), left({ _tag: 'PreAuthorizedCodeUsed', offerId: ID }));
});

test('given an offer, when tx_code is sent where none was asked for, or missing where it was, then refused and nothing counted', (t) => {
  t.deepEqual(scenario([created()], redeem(TX_HASH)), left({ _tag: 'TxCodeNotExpected', offerId: ID }));
  t.deepEqual(scenario([created(true)], redeem(undefined)), left({ _tag: 'TxCodeRequired', offerId: ID }));
});

test('given an offer with a transaction code, when a wrong one is sent, then counted; the last allowed wrong one fails the offer (FAILED)', (t) => {
  t.deepEqual(scenario([created(true)], redeem(WRONG_HASH)), right([rejected(1)]));
  t.deepEqual(scenario([created(true), rejected(1)], redeem(WRONG_HASH)), right([rejected(2)]));
  t.deepEqual(scenario([created(true), rejected(1), rejected(2)], redeem(WRONG_HASH)), right([rejected(3), failed('transaction code wrong 3 times', T1)]));
  t.like(stateOf([created(true), rejected(1), rejected(2), rejected(3), failed('transaction code wrong 3 times', T1)]), { status: 'FAILED', grant: { txCodeFailures: 3 } });
  t.deepEqual(scenario([created(true), rejected(1), rejected(2), rejected(3), failed()], redeem(TX_HASH)), left({ _tag: 'OfferEnded', offerId: ID, status: 'FAILED' }));
});

test('given a redeemed code, when the credential is issued with its access token while the offer is open, then CredentialIssued (ISSUED)', (t) => {
  t.deepEqual(scenario([created(), redeemed()], issue()), right([issued]));
  t.like(stateOf([created(), redeemed(), issued]), { status: 'ISSUED' });
});

test('given an offer, when the credential is issued with another token, no token, after the offer ended or expired, then refused', (t) => {
  t.deepEqual(scenario([], issue()), left({ _tag: 'AccessTokenUnknown', offerId: ID }));
  t.deepEqual(scenario([created()], issue()), left({ _tag: 'AccessTokenUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), redeemed()], issue(OTHER_TOKEN_HASH)), left({ _tag: 'AccessTokenUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), redeemed(), issued], issue()), left({ _tag: 'OfferEnded', offerId: ID, status: 'ISSUED' }));
  t.deepEqual(scenario([created(), redeemed(), failed()], issue()), left({ _tag: 'OfferEnded', offerId: ID, status: 'FAILED' }));
  t.deepEqual(scenario([created(), redeemed()], issue(TOKEN_HASH, EXPIRES)), left({ _tag: 'OfferHasExpired', offerId: ID }));
});

test('given an open offer, when issuance fails, then OfferFailed (FAILED) with errorDetails; given an ended offer, then nothing', (t) => {
  t.deepEqual(scenario([created(), redeemed()], fail), right([failed()]));
  t.like(stateOf([created(), failed()]), { status: 'FAILED' });
  t.deepEqual(scenario([created(), redeemed(), issued], fail), right([]));
  t.deepEqual(scenario([created(), expired], fail), right([]));
  t.deepEqual(scenario([], fail), right([]));
});

test('given an open offer, when its time-to-live elapses, then OfferExpired (EXPIRED); before it, or once ended, nothing', (t) => {
  t.deepEqual(scenario([created()], expire(EXPIRES)), right([expired]));
  t.like(stateOf([created(), expired]), { status: 'EXPIRED' });
  t.deepEqual(scenario([created(), redeemed()], expire(T2)), right([]));
  t.deepEqual(scenario([], expire(EXPIRES)), right([]));
});

test('the expiry and issuance race: whichever is recorded first ends the offer, the other decides nothing or is refused', (t) => {
  t.deepEqual(scenario([created(), redeemed(), issued], expire(LATER)), right([]));
  t.deepEqual(scenario([created(), redeemed(), expired], issue(TOKEN_HASH, T2)), left({ _tag: 'OfferEnded', offerId: ID, status: 'EXPIRED' }));
});

test('given an ended offer, when its claims are purged, then ClaimsPurged once; an open or unknown offer keeps its claims', (t) => {
  for (const end of [issued, failed(), expired]) {
    t.deepEqual(scenario([created(), redeemed(), end], purge), right([purged]));
    t.deepEqual(scenario([created(), redeemed(), end, purged], purge), right([]));
  }
  t.like(stateOf([created(), expired, purged]), { status: 'EXPIRED', claimsPurged: true });
  t.deepEqual(scenario([created(), redeemed()], purge), right([]));
  t.deepEqual(scenario([], purge), right([]));
});

test('one state per phase: no offer, an open offer with its grant offered then its token issued, an ended offer keeping the phase it ended in', (t) => {
  t.deepEqual(stateOf([]), { status: 'none' });
  t.like(stateOf([created()]), { status: 'OFFER_CREATED', grant: { grant: 'pre-authorized_code', phase: 'offered' } });
  t.like(stateOf([created(), redeemed()]), { status: 'OFFER_CREATED', grant: { phase: 'tokenIssued', token: { accessTokenHash: TOKEN_HASH, dpopJkt: 'jkt' } } });
  t.like(stateOf([created(), redeemed(), issued]), { status: 'ISSUED', claimsPurged: false, grant: { phase: 'tokenIssued' } });
  t.like(stateOf([created(), redeemed(), issued, purged]), { status: 'ISSUED', claimsPurged: true });
});

test('streams recorded before the authorization code flow (no grant in OfferCreated, no wallet in the redemption) replay as pre-authorized offers whose token opens them', (t) => {
  const recorded = [
    { type: 'OfferCreated', data: { offerId: ID, tenantId: TENANT, credentialConfigurationId: 'pid', claims, txCode: null, createdAt: T0, expiresAt: EXPIRES } },
    { type: 'PreAuthorizedCodeRedeemed', data: { accessTokenHash: TOKEN_HASH, dpopJkt: 'jkt', redeemedAt: T1, expiresAt: EXPIRES } },
  ];
  const events = recorded.map((e) => rightOf(OfferEvent.decode(e)));
  t.like(stateOf(events), { status: 'OFFER_CREATED', grant: { grant: 'pre-authorized_code', phase: 'tokenIssued' } });
  t.deepEqual(scenario(events, issue()), right([issued]));
});

// Each tenant its own credential issuer (issue 38): an offer records the issuer it was made at;
// its codes and tokens are decided only at that issuer's endpoints.
const TENANT_ISSUER = 'https://connector.example/issuers/tenant-1';
const OTHER_ISSUER = 'https://connector.example/issuers/tenant-2';
const atIssuer = (credentialIssuer: string | undefined) => givenWhen({ decide: offerAtIssuer(credentialIssuer).decide, evolve, initialState });
const createdAt = (credentialIssuer: string): OfferEvent => {
  const event = created();
  return event.type === 'OfferCreated' ? { ...event, data: { ...event.data, credentialIssuer, configurationRevision: 3 } } : event;
};

test('given an offer of a tenant\'s own issuer, it records the issuer and the configuration revision; one recorded before has neither (the deployment\'s)', (t) => {
  const command = create();
  const withIssuer: Command = command.type === 'CreateOffer' ? { ...command, data: { ...command.data, credentialIssuer: TENANT_ISSUER, configurationRevision: 3 } } : command;
  t.deepEqual(scenario([], withIssuer), right([createdAt(TENANT_ISSUER)]));
  t.like(stateOf([createdAt(TENANT_ISSUER)]), { credentialIssuer: TENANT_ISSUER, configurationRevision: 3 });
  const old = stateOf([created()]);
  t.false('credentialIssuer' in old || 'configurationRevision' in old);
  t.true(madeAt(old, undefined));
  t.false(madeAt(old, TENANT_ISSUER));
});

test('given an offer of one issuer, when its code is redeemed or its token used at another issuer (or the deployment\'s), then OfferNotFound and nothing; at its own, decided as always', (t) => {
  const given = [createdAt(TENANT_ISSUER)];
  for (const elsewhere of [OTHER_ISSUER, undefined]) {
    t.deepEqual(atIssuer(elsewhere)(given, redeem(undefined)), left({ _tag: 'OfferNotFound', offerId: ID }));
    t.deepEqual(atIssuer(elsewhere)([...given, redeemed()], issue()), left({ _tag: 'OfferNotFound', offerId: ID }));
  }
  t.deepEqual(atIssuer(TENANT_ISSUER)(given, redeem(undefined)), right([redeemed()]));
  t.deepEqual(atIssuer(TENANT_ISSUER)([...given, redeemed()], issue()), right([{ type: 'CredentialIssued', data: { ...offer, issuedAt: T2 } }]));
  // A deployment's offer is refused at a tenant's issuer.
  t.deepEqual(atIssuer(TENANT_ISSUER)([created()], redeem(undefined)), left({ _tag: 'OfferNotFound', offerId: ID }));
  // What is not a wallet's (failing, expiring, purging) is decided wherever it comes from.
  t.deepEqual(atIssuer(OTHER_ISSUER)(given, fail), right([failed()]));
});
