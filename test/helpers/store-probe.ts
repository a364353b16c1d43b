import { DatabaseSync } from 'node:sqlite';
import type { Config } from '../../shared/src/config/config.ts';
import { connectMongo } from '../../shared/src/store/mongodb/connect.ts';

/**
 * Reads the store of a running gateway behind its back, through a connection of its own, for facts
 * no contract method answers (how many media jobs exist at all).
 */
export async function countMediaJobs(config: Config): Promise<number> {
  const { store } = config;
  if (store.kind === 'sqlite') {
    const db = new DatabaseSync(store.path, { readOnly: true });
    try {
      return Number((db.prepare('SELECT count(*) AS n FROM media_jobs').get() as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const mongo = await connectMongo(store);
  try {
    return await mongo.db.collection('media_jobs').countDocuments({});
  } finally {
    await mongo.client.close();
  }
}

/** The stored form of one record (SQLite row or MongoDB document) as JSON text, or null. */
export async function storedText(config: Config, table: 'api_keys' | 'accounts' | 'media_jobs', id: string) {
  const { store } = config;
  if (store.kind === 'sqlite') {
    const db = new DatabaseSync(store.path, { readOnly: true });
    try {
      const row = db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id);
      return row === undefined ? null : JSON.stringify(row);
    } finally {
      db.close();
    }
  }
  const mongo = await connectMongo(store);
  try {
    const doc = await mongo.db.collection<{ _id: string }>(table).findOne({ _id: id });
    return doc === null ? null : JSON.stringify(doc);
  } finally {
    await mongo.client.close();
  }
}
