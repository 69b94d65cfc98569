/**
 * "What would an order earn": a cart (the Try a cart builder) and, optionally, a customer, checked
 * against one wallet's earning rules by the admin API's explain (docs/wallets.md "Earning rules").
 * Nothing is credited. Each rule says its points and why, step by step, in the wallet's units and
 * the application's currency; a rule capped per period says what its cap has left for the customer.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { admin, must, type Wallet } from '../api';
import { formatMoney } from '../money';
import { periodInWords } from '../when';
import { ErrorLine } from '../parts';
import { CartBuilder, emptyLine, orderOf, type CartDraft } from './try-cart/cart-builder';

type Explained = {
  points: number;
  rules: {
    name: string;
    points: number;
    period?: { period: string; left: number };
    steps: { step: string; amount?: number; points?: number; limited: boolean }[];
  }[];
};

/** One step of a rule in words; null for a step that says nothing the reader needs. */
function stepInWords(s: Explained['rules'][number]['steps'][number], currency: string | null, unit: (n: number) => string): string | null {
  switch (s.step) {
    case 'base':
      return `on ${formatMoney(s.amount ?? 0, currency)}`;
    case 'min_order':
      return 'the order is below the rule’s minimum: nothing';
    case 'rate':
      return `${unit(Math.round((s.points ?? 0) * 10_000) / 10_000)} before rounding`;
    case 'rounding':
      return `rounded: ${unit(s.points ?? 0)}`;
    case 'max_per_order':
      return `at most ${unit(s.points ?? 0)} an order`;
    case 'period_cap':
      return `the customer’s cap for the period leaves ${unit(s.points ?? 0)}`;
    default:
      return null;
  }
}

export function EarningCheck({
  app,
  wallet,
  currency,
  onClose,
}: {
  app: string;
  wallet: Wallet;
  currency: string | null;
  onClose: () => void;
}) {
  const [cart, setCart] = useState<CartDraft>({
    lines: [{ ...emptyLine(1), name: 'Shoes', sku: 'SHOE-1', price: '100' }],
    paymentMode: '',
    data: [],
  });
  const [customer, setCustomer] = useState('');
  const unit = (n: number) => `${n} ${n === 1 ? wallet.singular_unit_name : wallet.plural_unit_name}`;
  const check = useMutation({
    mutationFn: async () =>
      (await must(
        admin.POST('/admin/applications/{app}/wallets/{wallet_id}/earning/explain', {
          params: { path: { app, wallet_id: wallet.wallet_id } },
          body: { order: orderOf(cart), ...(customer.trim() ? { customer: customer.trim() } : {}) },
        }),
      )) as Explained,
  });
  const title = `What would an order earn in ${wallet.wallet_name}`;
  return (
    <form
      className="panel"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        check.mutate();
      }}
    >
      <h2>{title}</h2>
      <p className="hint">Nothing is credited: this reads the wallet’s earning rules as they are now.</p>
      <CartBuilder cart={cart} setCart={setCart} currency={currency} />
      <label>
        Customer (their id in your shop; blank: one who has earned nothing yet)
        <input value={customer} onChange={(e) => setCustomer(e.target.value)} />
      </label>
      <div className="actions">
        <button type="submit" disabled={check.isPending}>
          Check the order
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorLine error={check.error} />
      {check.data && (
        <div role="status" data-testid="earning-result">
          <p>
            <strong>This order earns {unit(check.data.points)}.</strong>
          </p>
          <ul className="plain">
            {check.data.rules.map((r) => (
              <li key={r.name}>
                {r.name}: {unit(r.points)} —{' '}
                {r.steps
                  .map((s) => stepInWords(s, currency, unit))
                  .filter((w): w is string => w !== null)
                  .join('; ')}
                {r.period && ` (${unit(r.period.left)} left ${periodInWords(r.period.period)} for ${customer.trim() || 'a new customer'})`}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
