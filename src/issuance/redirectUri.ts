// Which redirect_uri a pushed authorization request may name. The user's browser is sent there
// with the code, so a scheme the browser would run or render itself (`javascript:`, `data:`,
// `vbscript:`, `file:`, `blob:`) would make this issuer's redirect a script or a page of the
// wallet's choosing. Wallets register claimed https URLs, private-use schemes
// (`eu.europa.ec.wallet:/cb`, RFC 8252 section 7.1) and loopback http (RFC 8252 section 7.3);
// those stay allowed. RFC 6749 section 3.1.2 forbids a fragment.

/** Schemes a browser executes or renders instead of handing them to an app. */
const BROWSER_SCHEMES: ReadonlySet<string> = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** Why `value` cannot be a redirect_uri, or undefined when it can. */
export const redirectUriProblem = (value: string): string | undefined => {
  // The URL parser drops tabs and newlines and trims control characters and spaces, as browsers do
  // ("java\tscript:" is javascript:); a redirect_uri has none (RFC 3986), so any of them is refused outright.
  if (/[\x00-\x20\x7f]/.test(value)) return 'redirect_uri must not contain spaces or control characters.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'redirect_uri must be an absolute URI without a fragment.';
  }
  if (url.hash !== '' || value.includes('#')) return 'redirect_uri must be an absolute URI without a fragment.';
  // `protocol` is lower case whatever the request's case was.
  if (BROWSER_SCHEMES.has(url.protocol)) return `redirect_uri must not use the ${url.protocol} scheme: a browser would run or render it.`;
  return undefined;
};
