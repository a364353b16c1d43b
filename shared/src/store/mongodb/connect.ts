import { type Db, MongoClient } from 'mongodb';
import { declaredIndexes } from './indexes.ts';

export interface Mongo {
  readonly client: MongoClient;
  readonly db: Db;
}

export interface MongoOptions {
  readonly url: string;
  readonly database: string;
  readonly serverSelectionTimeoutMs: number;
}

/** Connects to MongoDB (or a wire-compatible server) and selects the service's database. */
export async function connectMongo(options: MongoOptions): Promise<Mongo> {
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMs,
    connectTimeoutMS: options.serverSelectionTimeoutMs,
    appName: 'model-gateway',
  });
  await client.connect();
  return { client, db: client.db(options.database) };
}

/** Creates every index a repository declared. Idempotent: safe on every start of every replica. */
export async function ensureIndexes(db: Db): Promise<void> {
  for (const { collection, indexes } of declaredIndexes()) {
    if (indexes.length > 0) await db.collection(collection).createIndexes([...indexes]);
  }
}
