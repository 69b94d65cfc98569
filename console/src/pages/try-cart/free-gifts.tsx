import type { Schemas } from '@coupons/client';
import { formatMoney } from '../../money';

/**
 * The free gifts a promotion gives on this cart, as the shop adds them (docs/campaigns.md "Free
 * gift"): read from an explain result's `free_gifts` when the answer carries them; nothing otherwise.
 */
export function FreeGifts({ result, currency }: { result: object; currency: string | null }) {
  const gifts = (result as { free_gifts?: Schemas['FreeGifts'] }).free_gifts;
  if (!gifts?.length) return null;
  return (
    <div className="free-gifts" data-testid="free-gifts">
      <p>Free gifts the shop adds to the cart:</p>
      <ul>
        {gifts.map((g, i) => (
          <li key={i}>
            {g.quantity} × {g.name}
            {g.sku ? ` (SKU ${g.sku})` : ''} — free, worth {formatMoney(g.value, currency)} each
          </li>
        ))}
      </ul>
    </div>
  );
}
