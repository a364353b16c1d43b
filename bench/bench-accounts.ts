/** The bench's accounts and keys, made through the operator API of the gateway under test. */

export type Admin = <T>(path: string, body: unknown, headers?: Record<string, string>) => Promise<T>;

export function adminClient(url: string, token: string): Admin {
  return async <T>(path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201)
      throw new Error(`POST /admin/v1${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
}

/** An account holds at most 25 active keys (the spec's limit). */
const KEYS_PER_ACCOUNT_MAX = 25;

/**
 * `count` keys at the spec's highest rate limit, on one generously credited account, or on as many
 * as the 25-active-keys limit needs (`<label>`, `<label>-2`, …).
 */
export async function accountWithKeys(admin: Admin, label: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let part = 0; keys.length < count; part += 1) {
    const name = part === 0 ? label : `${label}-${part + 1}`;
    keys.push(
      ...(await oneAccountWithKeys(admin, name, Math.min(KEYS_PER_ACCOUNT_MAX, count - keys.length))),
    );
  }
  return keys;
}

async function oneAccountWithKeys(admin: Admin, label: string, count: number): Promise<string[]> {
  const account = await admin<{ id: string }>('/accounts', { email: `${label}@bench.invalid`, name: label });
  await admin(
    `/accounts/${account.id}/topups`,
    { amount: 1_000_000_000, reference: 'bench' },
    { 'idempotency-key': `bench-${label}` },
  );
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await admin<{ key: string }>(`/accounts/${account.id}/keys`, {
      name: `${label}-${i}`,
      rate_limit: 3000,
    });
    keys.push(created.key);
  }
  return keys;
}
