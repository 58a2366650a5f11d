// The demo's output: a heading per step, indented lines under it (a multi-line value stays
// indented), and QR codes of the URIs a wallet would scan.
import QRCode from 'qrcode';

const write = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

export const heading = (text: string): void => write(`\n== ${text}`);

export const say = (text: string): void => write(text.replace(/^/gm, '   '));

export const qrCode = async (uri: string): Promise<void> => say(await QRCode.toString(uri, { type: 'terminal', small: true }));
