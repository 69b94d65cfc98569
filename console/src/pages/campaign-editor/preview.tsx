import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { admin, must, type Campaign } from '../../api';
import { takesValue, toBody, type Draft } from '../../campaign-draft';
import { describeBudget, describeDiscount, describeTierRule } from '../../promotion-words';

/**
 * The draft as the admin API's campaign format, and the API's campaign preview of it (nothing
 * saved), asked 400 ms after the last keystroke. A new campaign is checked once it has what every
 * campaign needs (a name, and a value for a percentage or an amount off): a blank form is not met with a list of what is missing.
 * `refusal` is the preview's error while it is about the draft as it stands.
 */
export function useCampaignPreview(app: string, campaign: string | undefined, draft: Draft | null) {
  const editing = campaign !== undefined;
  const body = draft ? toBody(draft, editing) : null;
  const bodyText = JSON.stringify(body);
  const [settled, setSettled] = useState(bodyText);
  useEffect(() => {
    const t = setTimeout(() => setSettled(bodyText), 400);
    return () => clearTimeout(t);
  }, [bodyText]);
  const started =
    draft !== null && (editing || (draft.name.trim() !== '' && (!takesValue(draft.discount.type) || draft.discount.value.trim() !== '')));
  const preview = useQuery({
    queryKey: ['campaign-preview', app, campaign, settled],
    enabled: started && settled === bodyText,
    retry: false,
    placeholderData: (previous) => previous,
    queryFn: () =>
      must(
        admin.POST('/admin/applications/{app}/campaign-preview', {
          params: { path: { app } },
          body: { campaign: JSON.parse(settled) as Record<string, unknown>, ...(editing ? { id: campaign } : {}) },
        }),
      ),
  });
  return { body, preview, refusal: started && settled === bodyText ? preview.error : null };
}

/**
 * The campaign in short (what the customer gets, its money budget, who can use it by tier, from the draft as typed), then
 * what customers can be told: the validity period, and the messages the campaign's rules can give.
 */
export function PreviewPanel({
  preview,
  body,
  currency,
  walletNames,
}: {
  preview: ReturnType<typeof useCampaignPreview>['preview'];
  body: Record<string, unknown> | null;
  currency: string | null;
  /** Each wallet's name by its id. */
  walletNames: Map<string, string>;
}) {
  const campaign = body as Partial<Pick<Campaign, 'discount' | 'budget' | 'tiers'>> | null;
  return (
    <aside aria-label="What customers can be told" className="preview">
      {campaign?.discount && (
        <>
          <h2>In short</h2>
          <p data-testid="summary-discount">{describeDiscount(campaign.discount, currency, (id) => walletNames.get(id))}.</p>
          <p data-testid="summary-budget">{describeBudget(campaign.budget ?? null, currency)}</p>
          <p data-testid="summary-tiers">{describeTierRule(campaign.tiers, (id) => walletNames.get(id))}</p>
        </>
      )}
      <h2>What customers can be told</h2>
      {preview.data && !preview.error ? (
        <>
          <p>
            Valid from {new Date(preview.data.valid_from).toLocaleString()}
            {preview.data.valid_until ? ` until ${new Date(preview.data.valid_until).toLocaleString()}` : ', no end'} (times without an
            offset are read in {preview.data.timezone}).
          </p>
          <ol data-testid="rule-texts">
            {preview.data.rule_texts.map((r) => (
              <li key={r.rule}>
                <q>{r.text}</q> <span className="hint">— {r.rule}</span>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p className="hint">{preview.isFetching ? 'Checking…' : 'Shown once the campaign can be saved.'}</p>
      )}
    </aside>
  );
}
