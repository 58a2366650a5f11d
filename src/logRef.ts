// Log lines and error messages never carry a bearer value: a presentation's `state` or an
// offer's id lets whoever holds it act in that flow (fetch the request, resolve the offer and its
// pre-authorized code), and a log is read by more people than the flow's parties. An operator
// still needs to find one flow's lines, so they carry a reference instead: the first 16 hex
// digits of the value's SHA-256, which the integrator computes from the value it holds
// (`printf %s "$STATE" | sha256sum | cut -c1-16`) and which gives nothing away of a 256-bit
// state or a random UUID.
import { createHash } from 'node:crypto';

export const logRef = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);

/**
 * A stream name as logs and error messages show it: the category as is, the id as its logRef
 * (`presentation-<stateRef>`). Every stream is shown this way, so nobody has to know which ids
 * are secrets.
 */
export const streamRef = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash < 0 ? logRef(streamId) : `${streamId.slice(0, dash)}-${logRef(streamId.slice(dash + 1))}`;
};
