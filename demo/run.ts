// `npm run demo`: both flows of the connector end to end in a minute, narrated, for an SD-JWT VC PID
// and then for an ISO mDL. The integrator
// creates a credential offer and the wallet (wallet/, the one the tests use) takes it into its
// file; then a presentation request (cross-device), which the wallet answers with that credential
// and key binding; the callbacks arrive, signed, at the demo's receiver. With its own connector it
// also issues with the authorization code flow, a tiny login page (loginPage.ts) standing in for
// the integrator's. A connector already
// ready at --connector is used (with --api-key or BOOTSTRAP_API_KEY); otherwise the demo starts
// one (connector.ts) and removes it, and everything it made, at the end. With --dc-api-page it
// serves the integrator's Digital Credentials API page instead (dcApiPage.ts) until interrupted.
// Its own connector also shows two organisations (organisations.ts), each onboarded through the
// management API at the start and each issuing under its own name and key and verifying under its
// own client id at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { acceptOffer, presentCredentials } from '../wallet/commands.js';
import { showJson } from '../wallet/show.js';
import { DEFAULT_MANAGEMENT_URL, notReadyReason, runningConnector, startOwnConnector, type Connector } from './connector.js';
import { startDcApiPage, type DcApiPage } from './dcApiPage.js';
import { startLoginPage, type LoginPage } from './loginPage.js';
import { heading, qrCode, say } from './print.js';
import { localWalletProvider } from '../wallet/walletProvider.js';
import type { CallbackReceiver } from './receiver.js';
import { onboardOrganisation, type Organisation } from './organisations.js';

const options = new Command()
  .name('npm run -s demo --')
  .description('Runs an issuance and a presentation end to end against a connector, with the wallet simulator.')
  .option('--connector <url>', 'management API of a running connector to use; without a ready one there, the demo starts its own', DEFAULT_MANAGEMENT_URL)
  .option('--api-key <key>', 'API key for a running connector (default: BOOTSTRAP_API_KEY)')
  .option(
    '--dc-api-page [origin]',
    "instead of the flows, serve the Digital Credentials API page (demo/dc-api/) and its backend until interrupted; origin: the https origin the browser shows it under (a proxy in front of the printed address), the session's expected_origins",
  )
  .parse()
  .opts<{ connector: string; apiKey?: string; dcApiPage?: string | true }>();

const PID_CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  nationalities: ['DE'],
  address: { street_address: 'Heidestraße 17', locality: 'Köln', postal_code: '51147', country: 'DE' },
  age_equal_or_over: { '18': true },
  issuing_authority: 'DE',
  issuing_country: 'DE',
};

/** The demo's one user, as the login page knows them. */
const MEMBERSHIP_CLAIMS = { member_number: 'M-1001', given_name: 'Erika', family_name: 'Mustermann' };

const PID_QUERY = {
  credentials: [
    {
      id: 'pid',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['urn:eudi:pid:1'] },
      claims: [{ path: ['given_name'] }, { path: ['family_name'] }, { path: ['address', 'locality'] }, { path: ['age_equal_or_over', '18'] }],
    },
  ],
};

const MDL_NAMESPACE = 'org.iso.18013.5.1';

// ISO/IEC 18013-5 Table 5; dates are full-dates (YYYY-MM-DD), the portrait base64url bytes.
const MDL_CLAIMS = {
  [MDL_NAMESPACE]: {
    family_name: 'Mustermann',
    given_name: 'Erika',
    birth_date: '1964-08-12',
    issue_date: '2024-01-02',
    expiry_date: '2034-01-01',
    issuing_country: 'DE',
    issuing_authority: 'Kraftfahrt-Bundesamt',
    document_number: 'B072RRE2I55',
    portrait: Buffer.from('a portrait, in JPEG in real life').toString('base64url'),
    driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2024-01-02', expiry_date: '2034-01-01' }],
    un_distinguishing_sign: 'D',
    age_over_18: true,
  },
};

const MDL_QUERY = {
  credentials: [
    {
      id: 'mdl',
      format: 'mso_mdoc',
      meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
      claims: [{ path: [MDL_NAMESPACE, 'family_name'] }, { path: [MDL_NAMESPACE, 'driving_privileges'] }, { path: [MDL_NAMESPACE, 'age_over_18'], intent_to_retain: false }],
    },
  ],
};

/** POST to the management API (with the bootstrap key, or `apiKey`); the answer's body, which must be 201. */
const create = async (connector: Connector, path: string, body: unknown, apiKey = connector.apiKey): Promise<Record<string, unknown>> => {
  say(`POST ${path}\n${showJson(body)}`);
  const response = await fetch(`${connector.managementUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
};

const showCallback = async (receiver: CallbackReceiver, what: string, match: (body: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
  const callback = await receiver.waitFor(match);
  if (callback === undefined) throw new Error(`no ${what} callback came`);
  say(`${String(callback.body['status'])}: webhook-id ${callback.webhookId}, Standard Webhooks signature verified\n${showJson(callback.body)}`);
  return callback.body;
};

const started = performance.now();
const directory = await mkdtemp(join(tmpdir(), 'connector-demo-'));
let connector: Connector | undefined;
let cleaned: Promise<void> | undefined;
let loginPage: LoginPage | undefined;
let dcApiPage: DcApiPage | undefined;
const providerFile = join(directory, 'wallet-provider.json');
const cleanup = (): Promise<void> =>
  (cleaned ??= (async () => {
    await connector?.close();
    await loginPage?.close();
    await dcApiPage?.close();
    await rm(directory, { recursive: true, force: true });
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

try {
  say('EUDI wallet connector: an issuance and a presentation, end to end, with the wallet simulator');
  heading('Connector');
  const reason = await notReadyReason(options.connector);
  if (reason === undefined) {
    const apiKey = options.apiKey ?? process.env['BOOTSTRAP_API_KEY'];
    if (!apiKey) throw new Error(`a connector is ready at ${options.connector}: give its API key with --api-key or BOOTSTRAP_API_KEY`);
    connector = runningConnector(options.connector, apiKey);
  } else {
    // The demo's own connector also shows the authorization code flow: it trusts the simulator's
    // wallet provider and sends users to the demo's login page.
    const provider = await localWalletProvider(providerFile);
    loginPage = await startLoginPage(MEMBERSHIP_CLAIMS);
    connector = await startOwnConnector(directory, reason, { WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor, AUTHENTICATION_URL: loginPage.url });
    loginPage.connect(connector.managementUrl, connector.apiKey);
  }
  for (const line of connector.description) say(line);
  const receiver = connector.receiver;
  const walletFile = join(directory, 'wallet.json');

  const organisations: Organisation[] = [];
  if (connector.newTenant) {
    for (const name of ['Bank', 'City']) {
      heading(`Onboarding the organisation "${name}": a tenant (npm run ops -- tenants create --name ${name}), its keys and its credential configuration (docs/onboarding.md)`);
      const organisation = await onboardOrganisation(connector.managementUrl, name, await connector.newTenant(name), say);
      say(`${name}: credential_issuer ${organisation.credentialIssuer}\n${name}: client_id ${organisation.clientId}`);
      organisations.push(organisation);
    }
  } else {
    say('(two organisations each with its own issuer and verifier are shown only with the demo\'s own connector: tenants are made on its store)');
  }

  if (options.dcApiPage !== undefined) {
    heading('The Digital Credentials API page: the integrator\'s page and its backend (demo/dc-api/, demo/dcApiPage.ts)');
    dcApiPage = await startDcApiPage({ dcqlQuery: PID_QUERY, ...(options.dcApiPage === true ? {} : { origin: options.dcApiPage }) });
    dcApiPage.connect(connector.managementUrl, connector.apiKey);
    say(`serving ${dcApiPage.url}; open it in a browser with a wallet (the Digital Credentials API needs https: put it behind --dc-api-page's origin). Ctrl-C stops it.`);
    // Until interrupted: the signal handlers above clean up.
    await new Promise<never>(() => undefined);
  }

  heading('Issuance: the integrator offers a PID (built-in configuration "pid") with a transaction code');
  const offer = await create(connector, '/offers', { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'numeric', length: 4 } });
  const offerUri = String(offer['credential_offer_uri']);
  const txCode = String(offer['tx_code_value']);
  say(`201: offer ${String(offer['offer_id'])}\n${offerUri}`);
  await qrCode(offerUri);
  say(`transaction code, for the user through another channel: ${txCode}`);

  heading(`The wallet accepts the offer (npm run wallet -- accept '<offer uri>' --tx-code ${txCode})`);
  await acceptOffer(offerUri, { file: walletFile, say, txCode });

  if (receiver) {
    heading('Callbacks of the offer');
    await showCallback(receiver, 'OFFER_CREATED', (b) => b['offerId'] === offer['offer_id'] && b['status'] === 'OFFER_CREATED');
    await showCallback(receiver, 'ISSUED', (b) => b['offerId'] === offer['offer_id'] && b['status'] === 'ISSUED');
  }

  if (loginPage) {
    heading('Issuance with the authorization code flow (HAIP): the user logs in at the integrator\'s page');
    const authorizationOffer = await create(connector, '/offers', { credential_configuration_id: 'membership', grant: 'authorization_code' });
    const authorizationOfferUri = String(authorizationOffer['credential_offer_uri']);
    say(`201: offer ${String(authorizationOffer['offer_id'])}, claims to come from the login\n${authorizationOfferUri}`);
    heading(`The wallet accepts it (npm run wallet -- accept '<offer uri>'): attested by its wallet provider, it sends the browser to log in`);
    await acceptOffer(authorizationOfferUri, {
      file: walletFile,
      say,
      // The browser: the authorization endpoint, the login page, and back to the wallet.
      authorization: { providerFile, authenticate: async (url) => void (await fetch(url)) },
    });
    if (receiver) {
      await showCallback(receiver, 'OFFER_CREATED', (b) => b['offerId'] === authorizationOffer['offer_id'] && b['status'] === 'OFFER_CREATED');
      await showCallback(receiver, 'ISSUED', (b) => b['offerId'] === authorizationOffer['offer_id'] && b['status'] === 'ISSUED');
    }
  } else {
    say('(the authorization code flow is shown only with the demo\'s own connector: it needs the demo\'s login page and wallet provider configured)');
  }

  heading('Verification: the integrator asks for the PID (cross-device: the wallet scans a QR code)');
  const request = await create(connector, '/oidc4vp', { dcql_query: PID_QUERY });
  const requestUri = String(request['cross_device_request_uri']);
  say(`201: expires at ${String(request['expires_at'])}\n${requestUri}`);
  await qrCode(requestUri);

  heading("The wallet presents the credential (npm run wallet -- present '<openid4vp uri>')");
  await presentCredentials(requestUri, { file: walletFile, say });

  if (receiver) {
    heading('Callback of the presentation request: the verified, disclosed claims');
    const outcome = await showCallback(receiver, 'presentation', (b) => b['state'] === request['state']);
    if (outcome['status'] !== 'FULFILLED') throw new Error(`the presentation ended ${String(outcome['status'])}`);
  }

  heading('Issuance: an ISO mobile driving licence (built-in configuration "mdl", format mso_mdoc), claims by namespace');
  const mdlOffer = await create(connector, '/offers', { credential_configuration_id: 'mdl', claims: MDL_CLAIMS });
  const mdlOfferUri = String(mdlOffer['credential_offer_uri']);
  say(`201: offer ${String(mdlOffer['offer_id'])}\n${mdlOfferUri}`);
  heading(`The wallet accepts the mDL (npm run wallet -- accept '<offer uri>')`);
  await acceptOffer(mdlOfferUri, { file: walletFile, say });

  heading('Verification: the integrator asks for three elements of the mDL');
  const mdlRequest = await create(connector, '/oidc4vp', { dcql_query: MDL_QUERY });
  const mdlRequestUri = String(mdlRequest['cross_device_request_uri']);
  say(`201: expires at ${String(mdlRequest['expires_at'])}\n${mdlRequestUri}`);
  heading("The wallet presents the mDL: a DeviceResponse, device-signed over the request's SessionTranscript");
  await presentCredentials(mdlRequestUri, { file: walletFile, say });

  if (receiver) {
    heading('Callback of the mDL request: the decoded elements, as JSON');
    const outcome = await showCallback(receiver, 'presentation', (b) => b['state'] === mdlRequest['state']);
    if (outcome['status'] !== 'FULFILLED') throw new Error(`the mDL presentation ended ${String(outcome['status'])}`);
  }

  for (const organisation of organisations) {
    const { name, apiKey, credentialIssuer, clientId, vct } = organisation;
    heading(`${name} issues its own card: under its credential_issuer ${credentialIssuer}, signed with its own issuer key`);
    const cardOffer = await create(connector, '/offers', { credential_configuration_id: 'card', claims: { card_number: `${name.toUpperCase()}-1001`, given_name: 'Erika', family_name: 'Mustermann' } }, apiKey);
    const cardOfferUri = String(cardOffer['credential_offer_uri']);
    say(`201: offer ${String(cardOffer['offer_id'])}\n${cardOfferUri}`);
    heading(`The wallet accepts ${name}'s card, following ${name}'s issuer metadata`);
    const stored = await acceptOffer(cardOfferUri, { file: walletFile, say });
    if (stored.issuer !== credentialIssuer) throw new Error(`${name}'s card came from ${stored.issuer}, not ${credentialIssuer}`);
    heading(`${name} asks for its card: a request object signed with its own access key, client_id ${clientId}`);
    const cardRequest = await create(connector, '/oidc4vp', { dcql_query: { credentials: [{ id: 'card', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] } }, apiKey);
    const cardRequestUri = String(cardRequest['cross_device_request_uri']);
    say(`201: expires at ${String(cardRequest['expires_at'])}\n${cardRequestUri}`);
    const asked = new URL(cardRequestUri).searchParams.get('client_id');
    if (asked !== clientId) throw new Error(`${name}'s request names client_id ${String(asked)}, not ${clientId}`);
    await presentCredentials(cardRequestUri, { file: walletFile, say });
    say(`${name}: issued by ${credentialIssuer}, verified under ${clientId}`);
  }

  heading('Done');
  say(`all flows end to end in ${((performance.now() - started) / 1000).toFixed(1)} s; stopping what the demo started`);
} catch (err) {
  process.stderr.write(`demo failed: ${(err as Error).message}\n`);
  for (const line of connector?.log ?? []) process.stderr.write(`service: ${line}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
