/** The campaign editor's controls: a labelled control with its message, a typed select, a list of rows. */
import type { ReactNode, SelectHTMLAttributes } from 'react';
import type { Draft } from '../../campaign-draft';
import { sentenceOf } from '../../field-errors';

/** The admin API's message for a path of the campaign; `deep`: or for a part of it (an `in` list's third value: `….value.2`). */
export type ErrorOf = (path: string, deep?: boolean) => string | undefined;

/** What a section of the form is given: the draft, a way to change it, and the messages for its fields. */
export interface SectionProps {
  draft: Draft;
  set: (change: Partial<Draft>) => void;
  err: ErrorOf;
}

/** The attributes that tie a control to the message shown beside it for `path`. */
export const describedBy = (err: ErrorOf, path: string) => ({
  'aria-describedby': err(path) ? `error-${path}` : undefined,
  'aria-invalid': err(path) ? true : undefined,
});

/**
 * A labelled control with the admin API's message for its path beside it — outside the label, so
 * the control's name stays its label; the message is its description (`aria-describedby`).
 */
export function Labelled({
  label,
  path,
  err,
  deep,
  children,
}: {
  label: string;
  path: string;
  err: ErrorOf;
  deep?: boolean;
  children: ReactNode;
}) {
  const message = err(path, deep);
  return (
    <div className={message ? 'control invalid' : 'control'}>
      <label>
        {label}
        {children}
      </label>
      {message && (
        <span className="field-error" id={`error-${path}`}>
          {sentenceOf(message, label)}
        </span>
      )}
    </div>
  );
}

/** Options labelled by their own value, in the list's order. */
export const asOptions = <T extends string>(values: readonly T[]): [T, string][] => values.map((v): [T, string] => [v, v]);

/** A select of `options` (value and label, in order); a change hands over the chosen option's value. */
export function Choice<T extends string>({
  value,
  options,
  onChange,
  ...select
}: {
  value: T;
  options: readonly (readonly [T, string])[];
  onChange: (value: T) => void;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'>) {
  return (
    <select
      value={value}
      onChange={(e) => {
        const chosen = options.find(([v]) => v === e.target.value);
        if (chosen) onChange(chosen[0]);
      }}
      {...select}
    >
      {options.map(([v, label]) => (
        <option key={v} value={v}>
          {label}
        </option>
      ))}
    </select>
  );
}

/** A list of rows with add and remove. */
export function Rows<T>({
  legend,
  add,
  rows,
  onChange,
  fresh,
  render,
}: {
  legend: string;
  add: string;
  rows: T[];
  onChange: (rows: T[]) => void;
  fresh: () => T;
  render: (row: T, i: number, change: (row: T) => void) => ReactNode;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {rows.map((row, i) => (
        <div className="rule-row" key={i}>
          {render(row, i, (next) => onChange(rows.map((r, j) => (j === i ? next : r))))}
          <button
            type="button"
            className="link"
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
            aria-label={`Remove: ${legend} ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, fresh()])}>
        {add}
      </button>
    </fieldset>
  );
}
