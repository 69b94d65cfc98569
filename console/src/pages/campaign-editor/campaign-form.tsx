import { BasicsSection } from './basics';
import { CodeSection } from './code';
import type { SectionProps } from './controls';
import { DiscountSection } from './discount';
import { LimitsSection } from './limits';
import { MetadataKeysSection } from './metadata-keys';
import { RulesSection } from './rules';
import { StackingSection } from './stacking';
import { WhenSection } from './when';

/** Every field of the campaign format (docs/campaigns.md), section by section. */
export function CampaignForm({ editing, wallets, ...section }: SectionProps & { editing: boolean; wallets: string[] }) {
  return (
    <>
      <BasicsSection {...section} />
      <CodeSection {...section} editing={editing} />
      <DiscountSection {...section} wallets={wallets} />
      <WhenSection {...section} />
      <LimitsSection {...section} />
      <RulesSection {...section} />
      <MetadataKeysSection {...section} />
      <StackingSection {...section} />
    </>
  );
}
