import { BasicsSection } from './basics';
import { BudgetSection, PointsSection } from './budget';
import { CodeSection } from './code';
import type { SectionProps } from './controls';
import { DiscountSection } from './discount';
import { LimitsSection } from './limits';
import { MetadataKeysSection } from './metadata-keys';
import { RulesSection } from './rules';
import { StackingSection } from './stacking';
import { WhenSection } from './when';

/** Every field of the campaign format (docs/campaigns.md), section by section. */
export function CampaignForm({
  editing,
  wallets,
  currency,
  ...section
}: SectionProps & {
  editing: boolean; /** The application's wallets: [wallet id, its name]. */
  wallets: [string, string][];
  currency: string | null;
}) {
  return (
    <>
      <BasicsSection {...section} />
      <CodeSection {...section} editing={editing} />
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
