import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { newPaymentId } from '../../../../shared/src/payments/payments.repository.ts';
import { describeEachStore, JONGODB_RACES } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const authority = () => `A${randomBytes(20).toString('hex').slice(0, 35)}`;

describeEachStore('payments repository', (store, kind) => {
  const create = (accountId = `acct_${randomBytes(4).toString('hex')}`, amountToman = 50_000, at = now) =>
    store().payments.create({ id: newPaymentId(), accountId, amountToman }, at);

  it('stores a pending payment without an authority, found by id', async () => {
    const payment = await create('acct_p1', 120_000);
    expect(payment).toMatchObject({
      accountId: 'acct_p1',
      amountToman: 120_000,
      status: 'pending',
      authority: null,
      refId: null,
      cardPan: null,
      reason: null,
      paidAt: null,
    });
    expect(await store().payments.findById(payment.id)).toEqual(payment);
    expect(await store().payments.findById('pay_unknown')).toBeNull();
  });

  it('sets the authority once, and finds the payment by it', async () => {
    const payment = await create();
    const a = authority();
    expect((await store().payments.setAuthority(payment.id, a, later(1)))?.authority).toBe(a);
    expect(await store().payments.setAuthority(payment.id, authority(), later(2))).toBeNull();
    expect((await store().payments.findByAuthority(a))?.id).toBe(payment.id);
    expect(await store().payments.findByAuthority(authority())).toBeNull();
  });

  it('moves to paid once, with ref_id and card; a paid payment is not failed', async () => {
    const payment = await create();
    const paid = await store().payments.markPaid(
      payment.id,
      { refId: 201, cardPan: '502229******5995' },
      later(5),
    );
    expect(paid).toMatchObject({ status: 'paid', refId: 201, cardPan: '502229******5995', paidAt: later(5) });
    expect(await store().payments.markPaid(payment.id, { refId: 202, cardPan: null }, later(6))).toBeNull();
    expect(await store().payments.markFailed(payment.id, 'cancelled', later(7))).toBeNull();
    expect((await store().payments.findById(payment.id))?.refId).toBe(201);
  });

  it('fails a pending payment with its reason; a failed one can still be paid (verified later)', async () => {
    const payment = await create();
    expect(await store().payments.markFailed(payment.id, 'cancelled', later(1))).toMatchObject({
      status: 'failed',
      reason: 'cancelled',
    });
    expect(await store().payments.markFailed(payment.id, 'again', later(2))).toBeNull();
    expect(await store().payments.noteReason(payment.id, 'x', later(2))).toBeNull();
    expect(await store().payments.markPaid(payment.id, { refId: 9, cardPan: null }, later(3))).toMatchObject({
      status: 'paid',
      reason: null,
    });
  });

  it('notes why a pending payment is still pending', async () => {
    const payment = await create();
    expect(await store().payments.noteReason(payment.id, 'gateway_unavailable', later(1))).toMatchObject({
      status: 'pending',
      reason: 'gateway_unavailable',
    });
  });

  it('lists an account’s payments newest first, and pending ones by age', async () => {
    const account = `acct_${randomBytes(4).toString('hex')}`;
    const old = await create(account, 10_000, later(-60_000));
    const recent = await create(account, 20_000, later(0));
    await create('acct_someone_else', 30_000, later(0));
    expect((await store().payments.listByAccount(account, 10)).map((p) => p.id)).toEqual([recent.id, old.id]);
    expect((await store().payments.listByAccount(account, 1)).map((p) => p.id)).toEqual([recent.id]);
    const pending = await store().payments.listPending(later(-1), 1000);
    expect(pending.map((p) => p.id)).toContain(old.id);
    expect(pending.map((p) => p.id)).not.toContain(recent.id);
  });

  it('lets one of concurrent moves to paid win, also from another connection', async () => {
    if (kind === 'mongodb' && store().server === 'jongodb') return void JONGODB_RACES;
    const payment = await create();
    const other = await store().connectAgain();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? store().payments : other.payments).markPaid(
          payment.id,
          { refId: i, cardPan: null },
          later(i),
        ),
      ),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });
});
