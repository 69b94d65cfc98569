/**
 * "Try a cart" with several codes: the promotions in the order they were applied, what each took
 * off every item, why one was left out, the totals, and whether the customer could redeem them
 * all together — the admin explain answer (docs/stacking.md) in a promotion manager's words.
 */
import { useQueries } from '@tanstack/react-query';
import { admin, must } from '../../api';
import { formatMoney } from '../../money';
import { useApplication } from '../../use-application';
import { FreeGifts } from './free-gifts';
import { RulesTable, type Reading, type RuleCheck } from './rules';
import { eitherOf, whyLeftOut } from './why-left-out';

/**
 * The explain answer for several codes (shared/usecases/admin/explain.usecase.ts). Declared here
 * until openapi.yaml's explain answer has `codes`' fields: each result's trigger, position and
 * shares, and `stack`.
 */
export interface StackedAnswer {
  results: StackedResult[];
  stack: {
    total_discount_amount: number;
    total_cashback_amount: number;
    total_amount: number;
    shipping_discount_amount: number;
    item_discount_amounts: number[];
    /** Whether every code entered applies together: what a redeem of them all needs. */
    applicable: boolean;
  };
}

export interface StackedResult {
  campaign_id: string;
  campaign_name: string;
  code: string | null;
  trigger: 'code' | 'automatic';
  /** 1-based place in the order applied; null when left out. */
  position: number | null;
  applicable: boolean;
  reason: string | null;
  message: string | null;
  discount_amount: number;
  cashback_amount: number;
  shipping_discount_amount: number;
  /** Per item of the order, what it took off. */
  item_discount_amounts: number[];
  checks: RuleCheck[];
}

interface Props {
  app: string;
  answer: StackedAnswer;
  /** The order's items as the manager reads them (name, SKU or product id), in the order's order. */
  items: string[];
  currency: string | null;
}

export function StackedVerdicts({ app, answer, items, currency }: Props) {
  const money = (n: number) => formatMoney(n, currency);
  const timeZone = useApplication(app).data?.timezone ?? null;
  const { results, stack } = answer;
  // Whether a promotion refused as "only on its own" is itself exclusive: read from its campaign.
  const exclusiveIds = [...new Set(results.filter((r) => r.reason === 'stacking_exclusive').map((r) => r.campaign_id))];
  const campaigns = useQueries({
    queries: exclusiveIds.map((campaign) => ({
      queryKey: ['campaign', app, campaign],
      queryFn: () => must(admin.GET('/admin/applications/{app}/campaigns/{campaign}', { params: { path: { app, campaign } } })),
    })),
  });
  const exclusiveOf = (id: string) => campaigns[exclusiveIds.indexOf(id)]?.data?.stacking.exclusive;
  const why = (r: StackedResult, i: number) =>
    whyLeftOut(
      r,
      results.slice(0, i).filter((b) => b.position !== null),
      exclusiveOf(r.campaign_id),
    );
  const applied = [...results].filter((r) => r.position !== null).sort((a, b) => a.position! - b.position!);
  const leftOutCodes = results.filter((r) => r.trigger === 'code' && r.position === null);

  return (
    <section aria-labelledby="stack-heading" className="stack">
      <h2 id="stack-heading">Promotions on this cart</h2>
      <p data-testid="stack-verdict" className={stack.applicable ? 'ok' : 'error'}>
        {stack.applicable
          ? 'The customer can redeem all of these codes together.'
          : `The customer can't redeem these codes together: ${eitherOf(leftOutCodes.map(label))} would be refused. Without ${
              leftOutCodes.length > 1 ? 'them' : 'it'
            }, the others apply as shown.`}
      </p>
      <table className="stack-order" tabIndex={0}>
        <caption>In the order they were applied</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Promotion</th>
            <th scope="col">Discount</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r, i) => (
            <tr key={i} data-testid="stack-row">
              <td>{r.position ?? 'Left out'}</td>
              <th scope="row">
                {r.campaign_name} <Code result={r} />
              </th>
              <td>{r.position === null ? '—' : money(r.discount_amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>Totals</h3>
      <table className="stack-totals" aria-label="Totals" tabIndex={0}>
        <tbody>
          <tr>
            <th scope="row">Total discount</th>
            <td data-testid="total-discount">{money(stack.total_discount_amount)}</td>
          </tr>
          {stack.shipping_discount_amount > 0 && (
            <tr>
              <th scope="row">of which off shipping</th>
              <td>{money(stack.shipping_discount_amount)}</td>
            </tr>
          )}
          {stack.total_cashback_amount > 0 && (
            <tr>
              <th scope="row">Cashback promised</th>
              <td>{money(stack.total_cashback_amount)}</td>
            </tr>
          )}
          <tr>
            <th scope="row">Customer pays</th>
            <td data-testid="customer-pays">{money(stack.total_amount)}</td>
          </tr>
        </tbody>
      </table>

      {applied.map((r) => (
        <Applied key={`${r.position}`} result={r} items={items} money={money} reading={{ currency, timeZone }} />
      ))}
      {results.map((r, i) =>
        r.position === null ? (
          <article key={`left-${i}`} className="verdict no" aria-labelledby={`left-${i}`}>
            <h3 id={`left-${i}`}>
              Left out: {r.campaign_name} <Code result={r} />
            </h3>
            <p data-testid="why">{why(r, i)}</p>
            {r.message && <p className="hint">What validate answers: “{r.message}”</p>}
            <Rules result={r} reading={{ currency, timeZone }} />
          </article>
        ) : null,
      )}
    </section>
  );
}

function label(r: StackedResult): string {
  return r.code ? `${r.campaign_name} (${r.code})` : r.campaign_name;
}

function Code({ result }: { result: StackedResult }) {
  return result.code ? <code>{result.code}</code> : <span className="hint">applied automatically</span>;
}

function Applied({
  result: r,
  items,
  money,
  reading,
}: {
  result: StackedResult;
  items: string[];
  money: (n: number) => string;
  reading: Reading;
}) {
  const { currency } = reading;
  const id = `applied-${r.position}`;
  return (
    <article className="verdict yes" aria-labelledby={id}>
      <h3 id={id}>
        {r.position}. {r.campaign_name} <Code result={r} />
      </h3>
      <table tabIndex={0}>
        <caption>What {r.campaign_name} took off</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Taken off</th>
          </tr>
        </thead>
        <tbody>
          {r.item_discount_amounts.map((amount, i) => (
            <tr key={i}>
              <th scope="row">{items[i] ?? `Item ${i + 1}`}</th>
              <td>{money(amount)}</td>
            </tr>
          ))}
          {r.shipping_discount_amount > 0 && (
            <tr>
              <th scope="row">Shipping</th>
              <td>{money(r.shipping_discount_amount)}</td>
            </tr>
          )}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Discount</th>
            <td>{money(r.discount_amount)}</td>
          </tr>
          {r.cashback_amount > 0 && (
            <tr>
              <th scope="row">Cashback promised</th>
              <td>{money(r.cashback_amount)}</td>
            </tr>
          )}
        </tfoot>
      </table>
      <FreeGifts result={r} currency={currency} />
      <Rules result={r} reading={reading} />
    </article>
  );
}

function Rules({ result, reading }: { result: StackedResult; reading: Reading }) {
  return (
    <details>
      <summary>Rules checked</summary>
      <RulesTable name={result.campaign_name} checks={result.checks} reading={reading} />
    </details>
  );
}
