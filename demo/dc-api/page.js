// The integrator's page, in the browser: ask the backend for a presentation session, hand its
// dc_api_request to the browser's Digital Credentials API, forward what the wallet answered.
// Plain script, no framework: the three steps are all there is.
'use strict';

const statusLine = document.querySelector('#status');
const result = document.querySelector('#result');

/** POST JSON to the page's own backend; its JSON answer, or an Error with the backend's reason. */
const post = async (path, body) => {
  const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.detail || answer.title || `${path} answered ${response.status}`);
  return answer;
};

const verify = async () => {
  if (typeof DigitalCredential === 'undefined' || !navigator.credentials) {
    statusLine.textContent = 'This browser has no Digital Credentials API.';
    return;
  }
  statusLine.textContent = 'Asking the backend for a presentation request…';
  // 1. The backend creates the session at the connector (POST /oidc4vp, flow_type dc_api).
  const session = await post('/dc-api/session', {});
  // dc_api_request is one {protocol, data} or, with dc_api_protocols, an array of them in order.
  const requests = Array.isArray(session.dc_api_request) ? session.dc_api_request : [session.dc_api_request];
  // 2. The browser asks the user, who picks a wallet; the wallet answers. Mediation is always required.
  statusLine.textContent = 'Waiting for your wallet…';
  const credential = await navigator.credentials.get({ digital: { requests } });
  // 3. The answer goes, as the browser returned it, with this page's origin, to the backend.
  statusLine.textContent = 'Checking the answer…';
  const verdict = await post(`/dc-api/session/${encodeURIComponent(session.state)}/response`, {
    origin: location.origin,
    protocol: credential.protocol,
    data: credential.data,
  });
  statusLine.textContent = verdict.status === 'FULFILLED' ? 'Verified.' : `Not verified: ${verdict.status}`;
  result.hidden = false;
  result.textContent = JSON.stringify(verdict, null, 2);
};

document.querySelector('#verify').addEventListener('click', () => {
  verify().catch((err) => {
    statusLine.textContent = `Failed: ${err.message}`;
  });
});
