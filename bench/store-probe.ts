/**
 * What one settlement's ledger calls cost on the MongoDB-wire store as the ledger grows: the
 * gateway's own repository calls (insertPending, markApplied, close, findById), timed one at a
 * time on a ledger filled to each size with charge-shaped entries. On MongoDB these stay flat
 * (indexed); on jongodb they grow with the collection, which decides the gateway's throughput there.
 */
import { MongoClient } from 'mongodb';
import { createLedgerRepository, type LedgerDoc } from '../shared/src/billing/ledger.repository.ts';
import { ensureIndexes } from '../shared/src/mongo/mongo.ts';

export interface LedgerCost {
  readonly entries: number;
  /** Median ms of one call, by repository function. */
  readonly ms: Readonly<Record<'insertPending' | 'markApplied' | 'close' | 'findById', number>>;
}

const charge = (id: string, now: Date): LedgerDoc => ({
  _id: id,
  account_id: 'acct_0123456789abcdef01234567',
  key_id: 'key_0123456789abcdef01234567',
  kind: 'charge',
  amount: -756_000n,
  model: 'openai/mock-delay-0',
  usage: { requests: 1, input_tokens: 12, output_tokens: 9 },
  day: '2026-11-22',
  month: '2026-11',
  state: 'pending',
  open: true,
  lease_until: now,
  created_at: now,
  reference: null,
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function probeLedgerCost(
  mongoUrl: string,
  sizes: readonly number[] = [0, 1000, 2000, 4000],
  samples = 7,
): Promise<LedgerCost[]> {
  const client = new MongoClient(mongoUrl);
  try {
    const db = client.db('store_probe');
    await ensureIndexes(db);
    const ledger = createLedgerRepository(db);
    const raw = db.collection<LedgerDoc>('ledger', { useBigInt64: true });
    const rows: LedgerCost[] = [];
    let filled = 0;
    let probe = 0;
    for (const size of sizes) {
      while (filled < size) {
        const count = Math.min(500, size - filled);
        const now = new Date();
        await raw.insertMany(Array.from({ length: count }, (_, i) => charge(`req_fill_${filled + i}`, now)));
        filled += count;
      }
      const times = { insertPending: [], markApplied: [], close: [], findById: [] } as Record<
        keyof LedgerCost['ms'],
        number[]
      >;
      for (let i = 0; i < samples; i++) {
        const id = `req_probe_${probe++}`;
        const time = async (name: keyof LedgerCost['ms'], call: () => Promise<unknown>) => {
          const start = performance.now();
          await call();
          times[name].push(performance.now() - start);
        };
        await time('insertPending', () => ledger.insertPending(charge(id, new Date())));
        await time('markApplied', () => ledger.markApplied(id));
        await time('close', () => ledger.close(id));
        await time('findById', () => ledger.findById(id));
      }
      filled += samples;
      rows.push({
        entries: size,
        ms: {
          insertPending: median(times.insertPending),
          markApplied: median(times.markApplied),
          close: median(times.close),
          findById: median(times.findById),
        },
      });
    }
    return rows;
  } finally {
    await client.close();
  }
}
