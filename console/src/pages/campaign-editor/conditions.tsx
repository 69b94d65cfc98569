import { conditionOperatorValues } from '@coupons/client';
import type { ConditionRow } from '../../campaign-draft';
import { fieldName, OPERATOR_WORDS, worded } from '../../promotion-words';
import { Choice, Labelled, Rows, type ErrorOf } from './controls';

/**
 * The rows of one kind of rule (`path`: cart_conditions, selected_items_validations or
 * product_validations), each a field of `fields`, an operator and a value. A saved row's field
 * that `fields` lacks (a metadata key no longer declared) is kept and offered first.
 */
export function Conditions({
  legend,
  name,
  path,
  rows,
  fields,
  onChange,
  err,
}: {
  legend: string;
  name: string;
  path: string;
  rows: ConditionRow[];
  fields: string[];
  onChange: (rows: ConditionRow[]) => void;
  err: ErrorOf;
}) {
  return (
    <Rows<ConditionRow>
      legend={legend}
      add={`Add ${name.toLowerCase()}`}
      rows={rows}
      onChange={onChange}
      fresh={() => ({ field: fields[0]!, operator: 'gte', value: '' })}
      render={(c, i, change) => (
        <>
          <Labelled label={`${name} ${i + 1} field`} path={`${path}.${i}.field`} err={err}>
            <Choice
              value={c.field}
              options={worded(fields.includes(c.field) ? fields : [c.field, ...fields], fieldName)}
              onChange={(field) => change({ ...c, field })}
            />
          </Labelled>
          <Labelled label={`${name} ${i + 1} operator`} path={`${path}.${i}.operator`} err={err}>
            <Choice
              value={c.operator}
              options={worded(conditionOperatorValues, (o) => OPERATOR_WORDS[o])}
              onChange={(operator) => change({ ...c, operator })}
            />
          </Labelled>
          <Labelled
            label={`${name} ${i + 1} value${c.operator === 'in' || c.operator === 'nin' ? 's (comma-separated)' : ''}`}
            path={`${path}.${i}.value`}
            err={err}
            deep
          >
            <input value={c.value} onChange={(e) => change({ ...c, value: e.target.value })} />
          </Labelled>
        </>
      )}
    />
  );
}
