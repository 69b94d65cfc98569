import type { TierRuleDraft } from '../../campaign-draft';
import { fieldWords } from '../../promotion-words';
import { Choice, describedBy, Labelled, type ErrorOf, type SectionProps } from './controls';

/** A wallet that has tiers: its id, its name and its level names, lowest first. */
export interface TierWallet {
  wallet_id: string;
  wallet_name: string;
  levels: string[];
}

/**
 * Who can use the campaign by loyalty tier (docs/wallets.md "Tiers"): every customer, or only
 * customers at some levels of one wallet's tiers — the wallet by its name, its levels ticked.
 * Only wallets with tiers are offered; with none, the section says where to set them up.
 */
export function TierRuleSection({
  draft: d,
  set,
  err: apiErr,
  tierWallets,
  walletNames,
  walletsHref,
}: SectionProps & {
  /** The application's wallets that have tiers; undefined while they load. */
  tierWallets: TierWallet[] | undefined;
  /** Every wallet's name by its id, for a saved campaign's wallet that no longer has tiers. */
  walletNames: Map<string, string>;
  /** The wallets page, where tiers are set. */
  walletsHref: string;
}) {
  // A refused tier field, said in plain words.
  const err: ErrorOf = (path, deep) => {
    const message = apiErr(path, deep);
    return message === undefined ? undefined : (fieldWords(path, '') ?? message);
  };
  const t = d.tiers;
  const change = (next: Partial<TierRuleDraft>) => set({ tiers: { ...t, ...next } });
  const wallets = tierWallets ?? [];
  const chosen = wallets.find((w) => w.wallet_id === t.wallet_id);
  // A saved campaign's wallet or level the wallet no longer offers stays shown, so it can be changed.
  const walletOptions: [string, string][] = wallets.map((w) => [w.wallet_id, w.wallet_name]);
  if (t.wallet_id && !chosen)
    walletOptions.unshift([t.wallet_id, `${walletNames.get(t.wallet_id) ?? 'A wallet not listed'} (no tiers now)`]);
  // None chosen yet (chosen before the wallets were read): said, never shown as the first wallet.
  if (!t.wallet_id && walletOptions.length > 0) walletOptions.unshift(['', 'Choose a wallet']);
  const levels = [...(chosen?.levels ?? []), ...t.levels.filter((l) => !chosen?.levels.includes(l))];
  const order = (names: string[]) => [...names].sort((a, b) => levels.indexOf(a) - levels.indexOf(b));
  const levelsError = err('tiers.levels', true);
  return (
    <fieldset>
      <legend>Loyalty tiers</legend>
      <Labelled label="Who can use it" path="tiers" err={err}>
        <Choice
          value={t.only ? 'tiers' : 'all'}
          options={[
            ['all', 'Every customer'],
            ['tiers', 'Only customers at these tiers'],
          ]}
          onChange={(v) =>
            change({ only: v === 'tiers', ...(v === 'tiers' && !t.wallet_id ? { wallet_id: wallets[0]?.wallet_id ?? '' } : {}) })
          }
          {...describedBy(err, 'tiers')}
        />
      </Labelled>
      {t.only &&
        (tierWallets === undefined ? (
          <p className="loading">Loading wallets…</p>
        ) : walletOptions.length === 0 ? (
          <p className="hint" data-testid="no-tier-wallets">
            No wallet has tiers yet. Set them up on the <a href={walletsHref}>wallets page</a>: edit a wallet, choose how its levels are
            assessed under &ldquo;Tiers&rdquo; and name its levels; then choose them here.
          </p>
        ) : (
          <>
            <Labelled label="Tiers of the wallet" path="tiers.wallet_id" err={err}>
              <Choice
                value={t.wallet_id}
                options={walletOptions}
                onChange={(wallet_id) => change({ wallet_id, levels: [] })}
                {...describedBy(err, 'tiers.wallet_id')}
              />
            </Labelled>
            <fieldset className={levelsError ? 'invalid' : undefined} aria-describedby={levelsError ? 'error-tiers.levels' : undefined}>
              <legend>Levels it is for (one or more)</legend>
              {levels.map((name) => (
                <label key={name} className="inline">
                  <input
                    type="checkbox"
                    checked={t.levels.includes(name)}
                    onChange={(e) => change({ levels: order(e.target.checked ? [...t.levels, name] : t.levels.filter((l) => l !== name)) })}
                  />{' '}
                  {chosen?.levels.includes(name) ? name : `${name} (not a level of this wallet now)`}
                </label>
              ))}
              {levelsError && (
                <span className="field-error" id="error-tiers.levels">
                  {levelsError}
                </span>
              )}
            </fieldset>
            {d.assignment === 'assigned_users' && <p className="hint">A customer listed under Code must also be at one of these levels.</p>}
          </>
        ))}
      <p className="hint">
        {t.only
          ? 'Customers at another level, or not named at checkout, are refused with “coupon is for … members only”. The level is the one the customer holds now in that wallet.'
          : 'Whatever their tier, or with no tier at all.'}
      </p>
    </fieldset>
  );
}
