// Read model of the operator's acknowledgments of quarantined events (streams/quarantine.ts). The
// projection runner always runs it: readiness asks whether every quarantined event is acknowledged.
import { decodeRecorded, inCategory } from '../streams/event.js';
import { category, QuarantineAcknowledged } from '../streams/quarantine.js';
import { change, type Projection } from './projection.js';

export const quarantineAcknowledgmentsProjection: Projection = {
  name: 'quarantine_acknowledgments',
  tables: ['quarantine_acknowledgments'],
  schema: `CREATE TABLE IF NOT EXISTS quarantine_acknowledgments (
    position        TEXT PRIMARY KEY,
    acknowledged_at TEXT NOT NULL
  );`,
  apply: (recorded) => {
    if (!inCategory(category, recorded)) return [];
    const { position, acknowledgedAt } = decodeRecorded(QuarantineAcknowledged, recorded).data;
    return [change('INSERT OR IGNORE INTO quarantine_acknowledgments (position, acknowledged_at) VALUES (?, ?)', position, acknowledgedAt)];
  },
};
