// The wallet on the command line, against any running connector:
//   npm run -s wallet -- accept '<openid-credential-offer:// URI>' [--tx-code 1234] [--wallet FILE]
//   npm run -s wallet -- present '<openid4vp:// URI>' [--wallet FILE]
//   npm run -s wallet -- provider [--provider FILE]   (the local wallet provider's anchor)
// The wallet file defaults to .wallet.json in the directory the command was started from (npm
// runs scripts in the package root and says where it was started in INIT_CWD).
import { resolve } from 'node:path';
import { Command } from 'commander';
import { acceptOffer, presentCredentials, type Say } from './commands.js';
import { localWalletProvider } from './walletProvider.js';

const say: Say = (line) => {
  process.stdout.write(`${line}\n`);
};

const defaultFile = resolve(process.env['INIT_CWD'] ?? process.cwd(), '.wallet.json');
const defaultProviderFile = resolve(process.env['INIT_CWD'] ?? process.cwd(), '.wallet-provider.json');

const program = new Command()
  .name('npm run -s wallet --')
  .description('A wallet simulator: receives SD-JWT VCs (OpenID4VCI) and presents them (OpenID4VP, direct_post.jwt).')
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

await program.parseAsync();
