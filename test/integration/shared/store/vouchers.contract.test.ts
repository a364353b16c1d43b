import { expect, it } from 'vitest';
import {
  newVoucherCode,
  newVoucherId,
  voucherCodeHash,
} from '../../../../shared/src/vouchers/vouchers.repository.ts';
import { describeEachStore, JONGODB_RACES } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describeEachStore('vouchers repository', (store, kind) => {
  async function make(amountToman = 1_000, expiresAt: Date | null = null, at = now) {
    const code = newVoucherCode();
    const id = newVoucherId('vch');
    await store().vouchers.createMany(
      [
        {
          id,
          batchId: newVoucherId('vbt'),
          codeHash: voucherCodeHash(code),
          amountToman,
          note: 'n',
          expiresAt,
        },
      ],
      at,
    );
    return { code, id };
  }

  it('redeems a code once; then it is used, by whom and when', async () => {
    const { code, id } = await make(5_000);
    const first = await store().vouchers.redeem(voucherCodeHash(code), 'acct_a', later(1));
    expect(first).toMatchObject({
      outcome: 'redeemed',
      voucher: { id, amountToman: 5_000, redeemedBy: 'acct_a' },
    });
    const second = await store().vouchers.redeem(voucherCodeHash(code), 'acct_b', later(2));
    expect(second).toMatchObject({
      outcome: 'used',
      voucher: { redeemedBy: 'acct_a', redeemedAt: later(1) },
    });
  });

  it('answers not_found for an unknown code and an expired one', async () => {
    expect(await store().vouchers.redeem(voucherCodeHash('NOPE'), 'acct_a', now)).toEqual({
      outcome: 'not_found',
    });
    const { code } = await make(1_000, later(10));
    expect(await store().vouchers.redeem(voucherCodeHash(code), 'acct_a', later(10))).toEqual({
      outcome: 'not_found',
    });
  });

  it('hashes codes ignoring case, spaces and dashes', () => {
    expect(voucherCodeHash('abcd-efgh')).toBe(voucherCodeHash('ABCD EFGH'));
    expect(voucherCodeHash('ABCDEFGH')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists newest first, used or unused', async () => {
    const a = await make(1, null, later(100));
    const b = await make(2, null, later(200));
    await store().vouchers.redeem(voucherCodeHash(a.code), 'acct_x', later(300));
    const all = (await store().vouchers.list({ limit: 1000 })).map((v) => v.id);
    expect(all.indexOf(b.id)).toBeLessThan(all.indexOf(a.id));
    const used = (await store().vouchers.list({ limit: 1000, used: true })).map((v) => v.id);
    const unused = (await store().vouchers.list({ limit: 1000, used: false })).map((v) => v.id);
    expect(used).toContain(a.id);
    expect(used).not.toContain(b.id);
    expect(unused).toContain(b.id);
  });

  it('lets one of concurrent redemptions win, also from another connection', async () => {
    if (kind === 'mongodb' && store().server === 'jongodb') return void JONGODB_RACES;
    const { code } = await make();
    const other = await store().connectAgain();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? store().vouchers : other.vouchers).redeem(
          voucherCodeHash(code),
          `acct_${i}`,
          later(1),
        ),
      ),
    );
    expect(results.filter((r) => r.outcome === 'redeemed')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'used')).toHaveLength(9);
  });
});
