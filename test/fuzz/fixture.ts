/**
 * The fuzz run's accounts, keys, sessions and videos, made through the service's own HTTP APIs
 * (`/admin/v1`, `/console/api`, `/v1/videos`) on a running gateway, and the resolver of the
 * placeholders generated requests carry (`{{key:good:3}}`, `{{session:holder}}`, …).
 */
import { GOOD_KEYS, SPECIAL_KEYS, type SpecialKey } from './requests.ts';

export interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

export interface FuzzFixture {
  readonly origin: string;
  readonly adminToken: string;
  /** Funded keys with a rate limit of 3000 a minute, `GOOD_KEYS` of them over `mainAccounts`. */
  readonly goodKeys: readonly string[];
  readonly goodKeyAccounts: readonly string[];
  readonly specialKeys: Readonly<Record<SpecialKey, string>>;
  readonly mainAccounts: readonly string[];
  /** Accounts and keys the generated operator and console calls may change. */
  readonly scratchAccounts: readonly string[];
  readonly scratchKeyIds: readonly string[];
  readonly holder: { readonly email: string; readonly password: string; readonly accountId: string };
  readonly victim: { readonly email: string; readonly password: string; readonly accountId: string };
  readonly holderKeyIds: readonly string[];
  readonly sessions: Readonly<Record<'holder' | 'victim' | 'operator' | 'operator2', Session>>;
  /** Finished videos per account id. */
  readonly videos: Readonly<Record<string, readonly string[]>>;
  readonly foreignVideo: string;
}

const MAIN_ACCOUNTS = 4;
const SCRATCH_ACCOUNTS = 3;
const TOP_UP_IRT = 10_000_000_000;
const VIDEOS_PER_ACCOUNT = 3;

class FixtureError extends Error {}

interface Json {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

async function call(
  origin: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  return { status: response.status, body, headers: response.headers };
}

async function ok(answer: Promise<Json>, what: string): Promise<Record<string, unknown>> {
  const result = await answer;
  if (result.status >= 300)
    throw new FixtureError(`fuzz fixture: ${what} answered ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body;
}

function sessionOf(answer: Json): Session {
  const cookie = /gw_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
  const csrf = answer.body.csrf_token;
  if (cookie === undefined || typeof csrf !== 'string')
    throw new FixtureError(`fuzz fixture: no session in ${answer.status} ${JSON.stringify(answer.body)}`);
  return { cookie, csrf };
}

/** Makes everything the generated requests refer to, on the gateway at `origin`. */
export async function createFixture(origin: string, adminToken: string): Promise<FuzzFixture> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const admin = (method: string, path: string, body?: unknown) =>
    ok(call(origin, method, `/admin/v1${path}`, { headers: auth, body }), `${method} /admin/v1${path}`);
  const run = Date.now().toString(36);
  let made = 0;
  const account = async (label: string, topUp: number) => {
    made += 1;
    const created = await admin('POST', '/accounts', { email: `fuzz-${label}-${run}-${made}@example.test` });
    const id = created.id as string;
    if (topUp > 0) await admin('POST', `/accounts/${id}/topups`, { amount: topUp });
    return { id, email: created.email as string };
  };
  const key = async (accountId: string, settings: Record<string, unknown> = {}) => {
    const created = await admin('POST', `/accounts/${accountId}/keys`, { rate_limit: 3000, ...settings });
    return { id: created.id as string, key: created.key as string };
  };

  const mainAccounts = await Promise.all(
    Array.from({ length: MAIN_ACCOUNTS }, () => account('main', TOP_UP_IRT)),
  );
  const goodKeys: string[] = [];
  const goodKeyAccounts: string[] = [];
  for (let i = 0; i < GOOD_KEYS; i += 1) {
    const owner = mainAccounts[i % MAIN_ACCOUNTS] as { id: string };
    goodKeys.push((await key(owner.id)).key);
    goodKeyAccounts.push(owner.id);
  }

  // Keys whose settings refuse or limit (spec, checks 1–7).
  const settingsOwner = (await account('settings', TOP_UP_IRT)).id;
  const poor = (await account('poor', 0)).id;
  const inactive = (await account('inactive', TOP_UP_IRT)).id;
  const special: Record<string, string> = {
    rateLimited: (await key(settingsOwner, { rate_limit: 1 })).key,
    tinyCap: (await key(settingsOwner, { monthly_cap: 0.000001 })).key,
    ipLocked: (await key(settingsOwner, { allowed_ips: ['10.1.2.3', '2001:db8::1'] })).key,
    modelLocked: (await key(settingsOwner, { allowed_models: ['demo/chat', 'demo/image'] })).key,
    noIdentity: (await key(settingsOwner, { identity_injection: false })).key,
    expired: (await key(settingsOwner, { expires_at: '2001-01-01T00:00:00Z' })).key,
    disabled: (await key(settingsOwner, { active: false })).key,
    poor: (await key(poor)).key,
    inactiveAccount: (await key(inactive)).key,
  };
  const deleted = await key(settingsOwner);
  await admin('DELETE', `/keys/${deleted.id}`);
  special.deleted = deleted.key;
  await admin('PATCH', `/accounts/${inactive}`, { status: 'inactive' });
  for (const name of SPECIAL_KEYS) if (special[name] === undefined) throw new FixtureError(`no ${name} key`);

  const scratchAccounts = await Promise.all(
    Array.from({ length: SCRATCH_ACCOUNTS }, () => account('scratch', 1_000)),
  );
  const scratchKeyIds: string[] = [];
  for (let i = 0; i < 4; i += 1)
    scratchKeyIds.push((await key((scratchAccounts[i % SCRATCH_ACCOUNTS] as { id: string }).id)).id);

  // Console: two holders (a password set from an invitation link), two operator sessions.
  const consoleCall = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(origin, method, `/console/api${path}`, {
      body,
      headers: { 'x-requested-with': 'console', ...headers },
    });
  const holderWithSession = async (label: string) => {
    const holder = await account(label, TOP_UP_IRT);
    const link = await admin('POST', `/accounts/${holder.id}/invitations`, { purpose: 'invite' });
    const token = /#token=(.+)$/.exec(String(link.url))?.[1];
    if (token === undefined) throw new FixtureError(`no token in the invitation ${String(link.url)}`);
    const password = `fuzz-password-${label}-${run}`;
    const set = await consoleCall('POST', '/password/set', { token, password });
    if (set.status !== 200)
      throw new FixtureError(`password/set answered ${set.status}: ${JSON.stringify(set.body)}`);
    return { email: holder.email, password, accountId: holder.id, session: sessionOf(set) };
  };
  const holder = await holderWithSession('holder');
  const victim = await holderWithSession('victim');
  const operatorSession = async () => {
    const answer = await consoleCall('POST', '/operator-session', { token: adminToken });
    if (answer.status !== 200) throw new FixtureError(`operator-session answered ${answer.status}`);
    return sessionOf(answer);
  };
  const operator = await operatorSession();
  const operator2 = await operatorSession();
  const holderKeyIds: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const created = await consoleCall(
      'POST',
      '/keys',
      { name: `fuzz ${i}`, rate_limit: 3000 },
      { cookie: `gw_session=${holder.session.cookie}`, 'x-csrf-token': holder.session.csrf },
    );
    if (created.status !== 201) throw new FixtureError(`console key answered ${created.status}`);
    holderKeyIds.push(created.body.id as string);
  }

  // Finished videos of each main account and of the holder (their ids are what get/content/delete use).
  const holderKey = await key(holder.accountId);
  const videoOwners: Array<[string, string]> = mainAccounts.map((a, i) => [a.id, goodKeys[i] as string]);
  videoOwners.push([holder.accountId, holderKey.key]);
  const videos: Record<string, string[]> = {};
  for (const [accountId, apiKey] of videoOwners) {
    videos[accountId] = [];
    for (let i = 0; i < VIDEOS_PER_ACCOUNT; i += 1) {
      const created = await ok(
        call(origin, 'POST', '/v1/videos', {
          headers: { authorization: `Bearer ${apiKey}` },
          body: { model: 'demo/video', prompt: `fuzz fixture ${i}`, duration: 1 },
        }),
        'POST /v1/videos',
      );
      (videos[accountId] as string[]).push(created.id as string);
    }
  }
  await waitForVideos(origin, videoOwners, videos);

  return {
    origin,
    adminToken,
    goodKeys,
    goodKeyAccounts,
    specialKeys: special as Record<SpecialKey, string>,
    mainAccounts: mainAccounts.map((a) => a.id),
    scratchAccounts: scratchAccounts.map((a) => a.id),
    scratchKeyIds,
    holder: { email: holder.email, password: holder.password, accountId: holder.accountId },
    victim: { email: victim.email, password: victim.password, accountId: victim.accountId },
    holderKeyIds,
    sessions: { holder: holder.session, victim: victim.session, operator, operator2 },
    videos,
    foreignVideo: (videos[holder.accountId] as string[])[0] as string,
  };
}

async function waitForVideos(
  origin: string,
  owners: ReadonlyArray<readonly [string, string]>,
  videos: Record<string, string[]>,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const [accountId, apiKey] of owners) {
    for (const id of videos[accountId] ?? []) {
      for (;;) {
        const polled = await call(origin, 'GET', `/v1/videos/${id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        if (polled.body.status === 'completed') break;
        if (polled.body.status === 'failed' || Date.now() > deadline)
          throw new FixtureError(
            `fuzz fixture: video ${id} did not complete: ${JSON.stringify(polled.body)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}

/** Changes the last character of a key: the right shape, but no such key. */
function mangle(key: string): string {
  const last = key.at(-1) === 'a' ? 'b' : 'a';
  return key.slice(0, -1) + last;
}

/** Resolves the placeholders of generated text against the fixture (unknown ones stay as written). */
export function placeholderResolver(fixture: FuzzFixture, host: string): (text: string) => string {
  const at = <T>(list: readonly T[], index: string): T | undefined => list[Number(index) % list.length];
  const lookup = (name: string): string | undefined => {
    const [kind, a = '', b = ''] = name.split(':');
    switch (kind) {
      case 'host':
        return host;
      case 'admin':
        return fixture.adminToken;
      case 'key': {
        if (a === 'special') return fixture.specialKeys[b as SpecialKey];
        const good = at(fixture.goodKeys, b);
        if (good === undefined) return undefined;
        if (a === 'good') return good;
        if (a === 'mangled') return mangle(good);
        if (a === 'noprefix') return good.slice(3);
        if (a === 'upper') return `HK-${good.slice(3)}`;
        return undefined;
      }
      case 'session':
        return fixture.sessions[a as keyof FuzzFixture['sessions']]?.cookie;
      case 'csrf':
        return fixture.sessions[a as keyof FuzzFixture['sessions']]?.csrf;
      case 'email':
        return a === 'victim' ? fixture.victim.email : fixture.holder.email;
      case 'password':
        return a === 'victim' ? fixture.victim.password : fixture.holder.password;
      case 'account':
        return at(a === 'scratch' ? fixture.scratchAccounts : fixture.mainAccounts, b);
      case 'keyid':
        return at(a === 'scratch' ? fixture.scratchKeyIds : fixture.holderKeyIds, b);
      case 'video': {
        if (a === 'foreign') return fixture.foreignVideo;
        if (a === 'holder') return fixture.videos[fixture.holder.accountId]?.[0];
        // own:<good key index>:<i>
        const account = at(fixture.goodKeyAccounts, b);
        const list = account === undefined ? undefined : fixture.videos[account];
        const i = name.split(':')[3] ?? '0';
        return list === undefined ? undefined : at(list, i);
      }
      default:
        return undefined;
    }
  };
  return (text) =>
    text.includes('{{')
      ? text.replace(/\{\{([A-Za-z0-9:_-]+)\}\}/g, (all, name: string) => lookup(name) ?? all)
      : text;
}

/** Every secret of the fixture, so a report can prove none leaked into it. */
export function fixtureSecrets(fixture: FuzzFixture): string[] {
  return [
    fixture.adminToken,
    ...fixture.goodKeys,
    ...Object.values(fixture.specialKeys),
    ...Object.values(fixture.sessions).flatMap((s) => [s.cookie, s.csrf]),
    fixture.holder.password,
    fixture.victim.password,
  ];
}
