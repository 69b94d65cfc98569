import { metadataTypeValues } from '@coupons/client';
import type { MetadataKeyRow } from '../../campaign-draft';
import { asOptions, Choice, describedBy, Labelled, Rows, type SectionProps } from './controls';

/** The metadata keys the campaign declares: the only metadata its rules can read. */
export function MetadataKeysSection({ draft: d, set, err }: SectionProps) {
  return (
    <Rows<MetadataKeyRow>
      legend="Metadata keys (the only metadata rules can read)"
      add="Add metadata key"
      rows={d.metadata_keys}
      onChange={(metadata_keys) => set({ metadata_keys })}
      fresh={() => ({ key: '', type: 'string', scope: 'both' })}
      render={(k, i, change) => (
        <>
          <Labelled label={`Metadata key ${i + 1}`} path={`metadata_keys.${i}.key`} err={err}>
            <input value={k.key} onChange={(e) => change({ ...k, key: e.target.value })} {...describedBy(err, `metadata_keys.${i}.key`)} />
          </Labelled>
          <Labelled label={`Metadata key ${i + 1} type`} path={`metadata_keys.${i}.type`} err={err}>
            <Choice value={k.type} options={asOptions(metadataTypeValues)} onChange={(type) => change({ ...k, type })} />
          </Labelled>
          <Labelled label={`Metadata key ${i + 1} read in`} path={`metadata_keys.${i}.scope`} err={err}>
            <Choice
              value={k.scope}
              options={[
                ['both', 'order and items'],
                ['order', 'order'],
                ['item', 'items'],
              ]}
              onChange={(scope) => change({ ...k, scope })}
            />
          </Labelled>
        </>
      )}
    />
  );
}

/** The declared keys a rule at `level` may test, as fields: `metadata.<key>`. */
export function metadataFields(keys: MetadataKeyRow[], level: 'order' | 'item'): string[] {
  return keys.filter((k) => k.key.trim() && (k.scope === 'both' || k.scope === level)).map((k) => `metadata.${k.key.trim()}`);
}
