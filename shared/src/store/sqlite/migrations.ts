/**
 * The SQLite schema, as numbered migrations applied in order at start (`PRAGMA user_version` holds
 * the last one applied). A migration is never edited once released: a change is a new one.
 *
 * Conventions: times are integer milliseconds since the epoch; money is integer µIRT (64-bit, as
 * `bigint` in code); booleans are 0/1; lists and nested records are JSON text. Tables are STRICT,
 * so a value of the wrong type is refused instead of stored.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, money, media jobs',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        name TEXT,
        status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        last4 TEXT NOT NULL,
        name TEXT NOT NULL,
        rate_limit INTEGER NOT NULL,
        monthly_cap INTEGER,
        allowed_ips TEXT NOT NULL,
        allowed_models TEXT,
        identity_injection INTEGER NOT NULL,
        expires_at INTEGER,
        active INTEGER NOT NULL,
        deleted_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        revision INTEGER NOT NULL,
        -- the 25-active-keys limit: a slot value is held by one key only (key-slots.ts)
        slot TEXT UNIQUE
      ) STRICT;
      -- serves: listByAccount(), occupiedSlots(), releaseExpiredSlots()
      CREATE INDEX api_keys_account_created ON api_keys (account_id, created_at, id);

      CREATE TABLE wallets (
        account_id TEXT PRIMARY KEY,
        balance INTEGER NOT NULL,
        version INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE ledger (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        key_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('charge', 'topup', 'adjustment')),
        amount INTEGER NOT NULL,
        model TEXT,
        requests INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        day TEXT NOT NULL,
        month TEXT NOT NULL,
        reference TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      -- serves: listLedger() (newest first, paged) and the ledger check's sum per account
      CREATE INDEX ledger_account_created ON ledger (account_id, created_at DESC, id DESC);

      CREATE TABLE key_spend (
        key_id TEXT NOT NULL,
        month TEXT NOT NULL,
        account_id TEXT NOT NULL,
        spent INTEGER NOT NULL,
        version INTEGER NOT NULL,
        PRIMARY KEY (key_id, month)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE usage_daily (
        account_id TEXT NOT NULL,
        date TEXT NOT NULL,
        model TEXT NOT NULL,
        requests INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost INTEGER NOT NULL,
        PRIMARY KEY (account_id, date, model)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE media_jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        status TEXT NOT NULL,
        request TEXT NOT NULL,
        hold_micros INTEGER NOT NULL,
        result TEXT,
        cost_micros INTEGER,
        error TEXT,
        progress REAL NOT NULL, -- 0 to 100, a provider may report fractions
        operation TEXT,
        deadline_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER,
        expires_at INTEGER,
        deleted_at INTEGER
      ) STRICT;
      -- serves: listOwned() (an account's videos, newest first)
      CREATE INDEX media_jobs_account_kind_created ON media_jobs (account_id, kind, created_at DESC);
      -- serves: finding jobs that are not final (the reconciler)
      CREATE INDEX media_jobs_status_updated ON media_jobs (status, updated_at);
    `,
  },
  {
    version: 2,
    name: 'console: passwords, one-time links, last use of keys',
    sql: `
      -- A password hash per account (scrypt, see api/src/console/password-hasher.ts); an account
      -- without a row has no password yet.
      CREATE TABLE account_credentials (
        account_id TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      -- One-time links (invitations and resets), by the SHA-256 of their token.
      CREATE TABLE invitations (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        purpose TEXT NOT NULL CHECK (purpose IN ('invite', 'reset')),
        expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT;
      -- serves: createInvitation() voiding the account's earlier links
      CREATE INDEX invitations_account ON invitations (account_id);

      -- When the key was last charged, kept by the settlement transaction (no write on the request path).
      ALTER TABLE key_spend ADD COLUMN last_used_at INTEGER;
      UPDATE key_spend SET last_used_at = used.at
        FROM (SELECT key_id, month, MAX(created_at) AS at FROM ledger
              WHERE kind = 'charge' AND key_id IS NOT NULL GROUP BY key_id, month) AS used
        WHERE used.key_id = key_spend.key_id AND used.month = key_spend.month;
      -- serves: keySpendsOf() (an account's keys' spend and last use, over every month)
      CREATE INDEX key_spend_account_key ON key_spend (account_id, key_id);
    `,
  },
  {
    version: 3,
    name: 'media jobs: unfinished jobs by status and kind',
    sql: `
      -- serves: listUnfinished() (the reconciler): completed jobs of the synchronous kinds, without
      -- reading the completed videos, which are final and accumulate
      CREATE INDEX media_jobs_status_kind_updated ON media_jobs (status, kind, updated_at, id);
    `,
  },
  {
    version: 4,
    name: 'channels: upstream credentials, sealed',
    sql: `
      -- One upstream credential of one provider; the credential sealed (AES-256-GCM) under the key
      -- named by secret_key_id, never in plain text (shared/src/channels/channel-secrets.ts).
      CREATE TABLE channels (
        id TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        name TEXT NOT NULL UNIQUE,
        base_url TEXT,
        secret_key_id TEXT NOT NULL,
        secret TEXT NOT NULL,
        key_last4 TEXT NOT NULL,
        weight INTEGER NOT NULL,
        priority INTEGER NOT NULL,
        models TEXT,
        enabled INTEGER NOT NULL,
        auto_disabled_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      -- serves: changeCounter() (one row, bumped by every write to channels)
      CREATE TABLE channel_changes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        counter INTEGER NOT NULL
      ) STRICT;
      INSERT INTO channel_changes (id, counter) VALUES (1, 0);
    `,
  },
];
