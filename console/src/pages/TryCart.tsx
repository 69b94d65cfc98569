import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, type CartExplanation } from '../api';
import { ErrorLine } from '../parts';
import { hrefOf } from '../route';

type Explanation = CartExplanation;

const EXAMPLE = JSON.stringify(
  {
    original_price_subtotal: 1200,
    selling_price_subtotal: 1000,
    items: [{ product_id: 'p1', sku: 'SHOE-1', original_price: 1200, selling_price: 1000, quantity: 1 }],
  },
  null,
  2,
);

/**
 * "Try a cart": a customer and an order (pasted or edited as JSON), for every campaign or one code;
 * the verdict validate would give and each rule with its figures. Nothing is redeemed or counted.
 */
export function TryCartPage({ app }: { app: string }) {
  const [orderError, setOrderError] = useState<string | null>(null);
  const explain = useMutation({
    mutationFn: (body: { source_id?: string; code?: string; order?: unknown }) =>
      must(admin.POST('/admin/applications/{app}/explain', { params: { path: { app } }, body })),
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = String(form.get('order') ?? '').trim();
    let order: unknown;
    try {
      order = text ? JSON.parse(text) : undefined;
      setOrderError(null);
    } catch (err) {
      setOrderError(`The order is not JSON: ${(err as Error).message}`);
      return;
    }
    const sourceId = String(form.get('source_id') ?? '').trim();
    const code = String(form.get('code') ?? '').trim();
    explain.mutate({ ...(sourceId ? { source_id: sourceId } : {}), ...(code ? { code } : {}), ...(order !== undefined ? { order } : {}) });
  }

  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <a href={hrefOf({ page: 'campaigns', app })}>campaigns</a>
      </p>
      <h1>Try a cart</h1>
      <p className="hint">What validate would answer for this customer and order — nothing is redeemed or counted.</p>
      <form className="try" onSubmit={submit} aria-label="Cart to try">
        <div className="row">
          <label>
            Customer (source_id)
            <input name="source_id" placeholder="optional" />
          </label>
          <label>
            Code
            <input name="code" placeholder="every campaign" />
          </label>
        </div>
        <label>
          Order (JSON, as sent to validate)
          <textarea
            name="order"
            rows={10}
            defaultValue={EXAMPLE}
            aria-invalid={orderError ? true : undefined}
            aria-describedby={orderError ? 'order-error' : undefined}
          />
        </label>
        <ErrorLine id="order-error" error={orderError} />
        <button type="submit" disabled={explain.isPending}>
          Try it
        </button>
      </form>
      <ErrorLine error={explain.error} />
      {explain.data && (
        <section aria-label="Verdicts">
          {explain.data.truncated && <p className="hint">Only the first 500 campaigns are shown: name a code to try another.</p>}
          {explain.data.results.map((r) => (
            <Verdict key={`${r.campaign_id}:${r.code ?? ''}`} result={r} />
          ))}
        </section>
      )}
    </>
  );
}

function Verdict({ result }: { result: Explanation }) {
  return (
    <article
      className={`verdict ${result.applicable ? 'yes' : 'no'}`}
      aria-label={`${result.campaign_name}: ${result.applicable ? 'applicable' : 'not applicable'}`}
    >
      <h2>
        {result.campaign_name} {result.code && <code>{result.code}</code>} —{' '}
        {result.applicable ? (
          <span data-testid="verdict">
            applicable: {result.cashback_amount > 0 ? `${result.cashback_amount} cashback` : `${result.discount_amount} off`}
          </span>
        ) : (
          <span data-testid="verdict">not applicable: {result.message}</span>
        )}
      </h2>
      <table>
        <caption className="visually-hidden">Rules of {result.campaign_name}</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Result</th>
            <th scope="col">What was checked</th>
            <th scope="col">Figures</th>
          </tr>
        </thead>
        <tbody>
          {result.checks.map((c, i) => (
            <tr key={i}>
              <td>
                <code>{c.rule}</code>
              </td>
              <td>{c.passed === null ? 'not reached' : c.passed ? 'passed' : 'failed'}</td>
              <td>{c.text}</td>
              <td>
                <Figures figures={c.figures as Record<string, unknown>} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}

function Figures({ figures }: { figures: Record<string, unknown> }) {
  const entries = Object.entries(figures);
  if (entries.length === 0) return <>—</>;
  return (
    <dl className="figures">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
