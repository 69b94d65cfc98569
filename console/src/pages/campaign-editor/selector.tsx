import { selectorOperatorValues } from '@coupons/client';
import type { SelectorDraft, SelectorRow } from '../../campaign-draft';
import { fieldName, SELECTOR_OPERATOR_WORDS, worded } from '../../promotion-words';
import { Choice, Labelled, type ErrorOf } from './controls';

/**
 * An item selector (`path`: item_selector, excluded_items, or a promotion kind's items such as
 * discount.buy.items): whether it is used, how its tests combine, and its tests — a property of
 * `properties`, an operator and values. `name` names its controls (default: the path); `fixed`: no
 * "use" checkbox, the caller decides whether it is used.
 */
export function Selector({
  legend,
  path,
  name = path,
  fixed = false,
  selector: s,
  properties,
  onChange,
  err,
}: {
  legend: string;
  path: string;
  name?: string;
  fixed?: boolean;
  selector: SelectorDraft;
  properties: string[];
  onChange: (s: SelectorDraft) => void;
  err: ErrorOf;
}) {
  const message = err(path);
  const changeTest = (i: number, change: Partial<SelectorRow>) =>
    onChange({ ...s, properties: s.properties.map((x, j) => (j === i ? { ...x, ...change } : x)) });
  return (
    <fieldset>
      <legend>{legend}</legend>
      {!fixed && (
        <label className="inline">
          <input type="checkbox" checked={s.enabled} onChange={(e) => onChange({ ...s, enabled: e.target.checked })} /> Use{' '}
          {path.replace('_', ' ')}
        </label>
      )}
      {message && <span className="field-error">{message}</span>}
      {s.enabled && (
        <>
          <Labelled label={`${legend.split(' (')[0]}: match`} path={`${path}.match`} err={err}>
            <Choice
              value={s.match}
              options={[
                ['AND', 'AND: every test holds'],
                ['OR', 'OR: any test holds'],
              ]}
              onChange={(match) => onChange({ ...s, match })}
            />
          </Labelled>
          {s.properties.map((p, i) => (
            <div className="rule-row" key={i}>
              <Labelled label={`${name} test ${i + 1} property`} path={`${path}.properties.${i}.property`} err={err}>
                <Choice
                  value={p.property}
                  options={worded(properties.includes(p.property) ? properties : [p.property, ...properties], fieldName)}
                  onChange={(property) => changeTest(i, { property })}
                />
              </Labelled>
              <Labelled label={`${name} test ${i + 1} operator`} path={`${path}.properties.${i}.operator`} err={err}>
                <Choice
                  value={p.operator}
                  options={worded(selectorOperatorValues, (o) => SELECTOR_OPERATOR_WORDS[o])}
                  onChange={(operator) => changeTest(i, { operator })}
                />
              </Labelled>
              <Labelled label={`${name} test ${i + 1} values (comma-separated)`} path={`${path}.properties.${i}.values`} err={err} deep>
                <input value={p.values} onChange={(e) => changeTest(i, { values: e.target.value })} />
              </Labelled>
              <button
                type="button"
                className="link"
                onClick={() => onChange({ ...s, properties: s.properties.filter((_, j) => j !== i) })}
                aria-label={`Remove ${name} test ${i + 1}`}
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => onChange({ ...s, properties: [...s.properties, { property: properties[0]!, operator: 'in', values: '' }] })}
          >
            Add test
          </button>
        </>
      )}
    </fieldset>
  );
}
