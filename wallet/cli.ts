// The wallet on the command line, against any running connector:
//   npm run -s wallet -- accept '<openid-credential-offer:// URI>' [--tx-code 1234] [--wallet FILE]
//   npm run -s wallet -- present '<openid4vp:// URI>' [--wallet FILE]
//   npm run -s wallet -- dc-api --origin https://shop.example '<dc_api_request JSON>' [--json] [--trust-anchors PEM]
//   npm run -s wallet -- provider [--provider FILE]   (the local wallet provider's anchor)
// The wallet file defaults to .wallet.json in the directory the command was started from (npm
// runs scripts in the package root and says where it was started in INIT_CWD).
import { resolve } from 'node:path';
import { Command } from 'commander';
import { acceptOffer, answerDcApi, presentCredentials, type Say } from './commands.js';
import { localWalletProvider } from './walletProvider.js';

const say: Say = (line) => {
  process.stdout.write(`${line}\n`);
};

const defaultFile = resolve(process.env['INIT_CWD'] ?? process.cwd(), '.wallet.json');
const defaultProviderFile = resolve(process.env['INIT_CWD'] ?? process.cwd(), '.wallet-provider.json');

const program = new Command()
  .name('npm run -s wallet --')
  .description('A wallet simulator: receives SD-JWT VCs and mdocs (OpenID4VCI) and presents them (OpenID4VP, direct_post.jwt or the Digital Credentials API).')
  .option('--wallet <file>', 'the wallet file: holder key and credentials, mode 0600', defaultFile)
  .option('--provider <file>', 'the local wallet provider that attests this wallet (authorization code flow), mode 0600', defaultProviderFile)
  .showHelpAfterError();

const run = async (work: (file: string) => Promise<unknown>): Promise<void> => {
  try {
    await work(resolve(program.opts<{ wallet: string }>().wallet));
  } catch (err) {
    process.stderr.write(`wallet: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
};

program
  .command('accept')
  .description('take the credential an openid-credential-offer:// URI offers and keep it in the wallet file')
  .argument('<offer-uri>', 'the openid-credential-offer:// URI')
  .option('--tx-code <code>', 'the transaction code the offer asks for, given to you another way')
  .action((offerUri: string, options: { txCode?: string }) =>
    run((file) =>
      acceptOffer(offerUri, {
        file,
        say,
        ...(options.txCode === undefined ? {} : { txCode: options.txCode }),
        // The user opens the printed authorization URL in a browser; the wallet waits for the redirect.
        authorization: { providerFile: resolve(program.opts<{ provider: string }>().provider), authenticate: () => say('open that URL in a browser; waiting for the redirect back to the wallet') },
      }),
    ),
  );

program
  .command('provider')
  .description("print the local wallet provider's root certificate (made on first use): list it in the connector's WALLET_PROVIDER_TRUST_ANCHORS")
  .action(() =>
    run(async () => {
      const provider = await localWalletProvider(resolve(program.opts<{ provider: string }>().provider));
      say(provider.anchor);
    }),
  );

program
  .command('present')
  .description('verify an openid4vp:// request, present the credentials it asks for with key binding, post the encrypted response')
  .argument('<request-uri>', 'the openid4vp:// URI')
  .action((requestUri: string) => run((file) => presentCredentials(requestUri, { file, say })));

program
  .command('dc-api')
  .description(
    "answer a Digital Credentials API request as the browser and the wallet would for a page at --origin; " +
      'prints the data the browser hands back to the page (the steps go to stderr)',
  )
  .argument('<dc-api-request>', 'the dc_api_request JSON: one {"protocol", "data"} or an array of them (the first protocol the wallet supports is answered)')
  .requiredOption('--origin <origin>', "the page's origin, as the browser asserts it (e.g. https://shop.example)")
  .option('--json', 'print {origin, protocol, data}, the body for POST /oidc4vp/{state}/dc-api-response')
  .option('--trust-anchors <pem-file>', "PEM certificates a signed request's x5c chain must lead to (without it, any chain: a simulator)")
  .action((request: string, options: { origin: string; json?: boolean; trustAnchors?: string }) =>
    run(async (file) => {
      let requests: unknown;
      try {
        requests = JSON.parse(request);
      } catch {
        throw new Error('the dc_api_request is not JSON');
      }
      const steps: Say = (line) => void process.stderr.write(`${line}\n`);
      const answer = await answerDcApi(requests, {
        file,
        say: steps,
        origin: options.origin,
        ...(options.trustAnchors === undefined ? {} : { trustAnchorsFile: resolve(process.env['INIT_CWD'] ?? process.cwd(), options.trustAnchors) }),
      });
      say(JSON.stringify(options.json === true ? answer : answer.data));
    }),
  );

await program.parseAsync();
