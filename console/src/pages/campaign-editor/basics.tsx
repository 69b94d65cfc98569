import { Choice, describedBy, Labelled, type SectionProps } from './controls';

/** Name, description, terms and status. */
export function BasicsSection({ draft: d, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>Campaign</legend>
      <Labelled label="Name" path="name" err={err}>
        <input value={d.name} onChange={(e) => set({ name: e.target.value })} required {...describedBy(err, 'name')} />
      </Labelled>
      <Labelled label="Description" path="description" err={err}>
        <input value={d.description} onChange={(e) => set({ description: e.target.value })} {...describedBy(err, 'description')} />
      </Labelled>
      <Labelled label="Terms and conditions (one per line)" path="terms_and_conditions" err={err}>
        <textarea rows={2} value={d.terms} onChange={(e) => set({ terms: e.target.value })} />
      </Labelled>
      <Labelled label="Status" path="status" err={err}>
        <Choice
          value={d.status}
          options={[
            ['active', 'active'],
            ['disabled', 'disabled'],
          ]}
          onChange={(status) => set({ status })}
        />
      </Labelled>
    </fieldset>
  );
}
