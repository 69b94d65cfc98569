import type { StackingDraft } from '../../campaign-draft';
import { Choice, describedBy, Labelled, type ErrorOf, type SectionProps } from './controls';

/** What to change, in a promotion manager's words, for each stacking field the admin API refuses. */
const WORDS: Record<string, string> = {
  'stacking.priority': 'Enter a whole number from -1000 to 1000.',
  'stacking.category': 'Use up to 64 letters, digits, - or _, without spaces.',
  'stacking.combines_with': 'List at least one category; each up to 64 letters, digits, - or _, without spaces.',
};

/**
 * How the campaign combines with other promotions on one order (docs/stacking.md): which applies
 * first, its category, whether it applies only on its own, and which categories it goes with. Read
 * only by applications that take several coupons per order or apply automatic promotions.
 */
export function StackingSection({ draft: d, set, err }: SectionProps) {
  const s = d.stacking;
  const change = (next: Partial<StackingDraft>) => set({ stacking: { ...s, ...next } });
  // The API's refusal of a stacking field (any part of it), said in the words above.
  const said: ErrorOf = (path, deep) => (err(path, deep) === undefined ? undefined : (WORDS[path] ?? err(path, deep)));
  return (
    <fieldset>
      <legend>Combining with other promotions</legend>
      <p className="hint">Used when an application takes more than one coupon per order or applies automatic promotions.</p>
      <Labelled label="Priority (higher applies first)" path="stacking.priority" err={said}>
        <input
          inputMode="numeric"
          value={s.priority}
          onChange={(e) => change({ priority: e.target.value })}
          {...describedBy(said, 'stacking.priority')}
        />
      </Labelled>
      <Labelled label="Category (optional, e.g. sitewide or loyalty)" path="stacking.category" err={said}>
        <input value={s.category} onChange={(e) => change({ category: e.target.value })} {...describedBy(said, 'stacking.category')} />
      </Labelled>
      <label className="inline">
        <input type="checkbox" checked={s.exclusive} onChange={(e) => change({ exclusive: e.target.checked })} /> Applies only on its own
      </label>
      <p className="hint">When checked, no other coupon or promotion is applied with it.</p>
      <div className="control">
        <label>
          Combines with
          <Choice
            value={s.combines}
            disabled={s.exclusive}
            options={[
              ['all', 'all promotions'],
              ['only', 'only these categories'],
            ]}
            onChange={(combines) => change({ combines })}
          />
        </label>
      </div>
      {s.combines === 'only' && (
        <Labelled label="Categories it combines with (one per line or comma-separated)" path="stacking.combines_with" err={said} deep>
          <textarea
            rows={2}
            value={s.categories}
            disabled={s.exclusive}
            onChange={(e) => change({ categories: e.target.value })}
            {...describedBy((path) => said(path, true), 'stacking.combines_with')}
          />
        </Labelled>
      )}
      <p className="hint">Two promotions are applied together only when each one combines with the other&apos;s category.</p>
    </fieldset>
  );
}
