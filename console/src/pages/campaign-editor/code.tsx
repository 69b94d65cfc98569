import { Choice, describedBy, Labelled, type SectionProps } from './controls';

/**
 * How customers get the campaign — a code (one fixed code, or bulk codes and their uses) or
 * automatically, with no code — and who may use it. A saved campaign's way and code stay as they are.
 */
export function CodeSection({ draft: d, set, err, editing }: SectionProps & { editing: boolean }) {
  const automatic = d.trigger === 'automatic';
  return (
    <fieldset>
      <legend>Code</legend>
      <Labelled label="How customers get it" path="trigger" err={err}>
        <Choice
          value={d.trigger}
          disabled={editing}
          options={[
            ['code', 'with a code'],
            ['automatic', 'automatically, no code needed'],
          ]}
          onChange={(trigger) => set({ trigger })}
        />
      </Labelled>
      {automatic ? (
        <p className="hint" data-testid="automatic-hint">
          Applied to every order that meets its rules, in applications that apply automatic promotions (their settings on the Applications
          page).
        </p>
      ) : (
        <>
          <Labelled label="Code type" path="code_type" err={err}>
            <Choice
              value={d.code_type}
              disabled={editing}
              options={[
                ['fixed', 'fixed: one code, listed to customers'],
                ['bulk', 'bulk: many codes, typed by customers'],
              ]}
              onChange={(code_type) => set({ code_type })}
            />
          </Labelled>
          {d.code_type === 'fixed' ? (
            <Labelled label="Code" path="code" err={err}>
              <input value={d.code} disabled={editing} onChange={(e) => set({ code: e.target.value })} {...describedBy(err, 'code')} />
            </Labelled>
          ) : (
            <Labelled label="Uses per bulk code" path="bulk_code_usage_limit" err={err}>
              <input
                inputMode="numeric"
                value={d.bulk_code_usage_limit}
                onChange={(e) => set({ bulk_code_usage_limit: e.target.value })}
                {...describedBy(err, 'bulk_code_usage_limit')}
              />
            </Labelled>
          )}
        </>
      )}
      <Labelled label="Who may use it" path="assignment" err={err}>
        <Choice
          value={d.assignment}
          options={[
            ['all_users', 'every customer'],
            ['assigned_users', 'only the customers listed'],
          ]}
          onChange={(assignment) => set({ assignment })}
        />
      </Labelled>
      {d.assignment === 'assigned_users' && (
        <Labelled label="Customers (source ids, one per line)" path="assigned_source_ids" err={err}>
          <textarea
            rows={3}
            value={d.assigned}
            onChange={(e) => set({ assigned: e.target.value })}
            {...describedBy(err, 'assigned_source_ids')}
          />
        </Labelled>
      )}
    </fieldset>
  );
}
