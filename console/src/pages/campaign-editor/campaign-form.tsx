import { BasicsSection } from './basics';
import { BudgetSection, PointsSection } from './budget';
import { CodeSection } from './code';
import type { SectionProps } from './controls';
import { DiscountSection } from './discount';
import { LimitsSection } from './limits';
import { MetadataKeysSection } from './metadata-keys';
import { RulesSection } from './rules';
import { StackingSection } from './stacking';
import { TierRuleSection, type TierWallet } from './tier-rule';
import { WhenSection } from './when';

/** Every field of the campaign format (docs/campaigns.md), section by section. */
export function CampaignForm({
  editing,
  wallets,
  tierWallets,
  walletsHref,
  currency,
  ...section
}: SectionProps & {
  editing: boolean;
  /** The application's wallets: [wallet id, its name]. */
  wallets: [string, string][];
  /** Those with tiers and their levels; undefined while they load. */
  tierWallets: TierWallet[] | undefined;
  /** The wallets page, where tiers are set. */
  walletsHref: string;
  currency: string | null;
}) {
  return (
    <>
      <BasicsSection {...section} />
      <CodeSection {...section} editing={editing} />
      <TierRuleSection {...section} tierWallets={tierWallets} walletNames={new Map(wallets)} walletsHref={walletsHref} />
      <DiscountSection {...section} wallets={wallets} currency={currency} />
      <WhenSection {...section} />
      <LimitsSection {...section} />
      <BudgetSection {...section} currency={currency} />
      <PointsSection {...section} />
      <RulesSection {...section} />
      <MetadataKeysSection {...section} />
      <StackingSection {...section} />
    </>
  );
}
