import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { admin, ApiFailure, must, problemOf, type Who } from '../api';
import {
  BASES,
  CART_FIELDS,
  draftOf,
  emptyDraft,
  ITEM_PROPERTIES,
  LIMITS,
  OPERATORS,
  PRODUCT_FIELDS,
  SELECTED_FIELDS,
  SELECTOR_OPERATORS,
  toBody,
  type ConditionRow,
  type Draft,
  type MetadataKeyRow,
  type SelectorDraft,
} from '../campaign-draft';
import { ErrorLine } from '../parts';
import { hrefOf } from '../route';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
type Errors = Record<string, string>;

/**
 * The campaign editor: every rule of docs/campaigns.md. As the person types, the admin API's
 * campaign preview checks the draft (nothing saved) — its refusals are shown beside their fields
 * and, when it would be saved, the messages its rules can give a customer are listed.
 */
export function CampaignEditorPage({ app, campaign, who }: { app: string; campaign?: string; who: Who }) {
  const editing = campaign !== undefined;
  const queries = useQueryClient();
  const saved = useQuery({
    queryKey: ['campaign', app, campaign],
    enabled: editing,
    queryFn: () => must(admin.GET('/admin/applications/{app}/campaigns/{campaign}', { params: { path: { app, campaign: campaign! } } })),
  });
  const [draft, setDraft] = useState<Draft | null>(editing ? null : emptyDraft());
  useEffect(() => {
    if (saved.data && draft === null) setDraft(draftOf(saved.data));
  }, [saved.data, draft]);
  const wallets = useQuery({
    queryKey: ['wallets', app],
    queryFn: () => must(admin.GET('/admin/applications/{app}/wallets', { params: { path: { app }, query: { limit: 100 } } })),
  });

  // The preview follows the draft, 400 ms after the last keystroke.
  const body = draft ? toBody(draft, editing) : null;
  const bodyText = JSON.stringify(body);
  const [settled, setSettled] = useState(bodyText);
  useEffect(() => {
    const t = setTimeout(() => setSettled(bodyText), 400);
    return () => clearTimeout(t);
  }, [bodyText]);
  // A new campaign is checked once it has what every campaign needs (a name and a value): a
  // blank form is not met with a list of what is missing.
  const started = draft !== null && (editing || (draft.name.trim() !== '' && draft.discount.value.trim() !== ''));
  const preview = useQuery({
    queryKey: ['campaign-preview', app, campaign, settled],
    enabled: started && settled === bodyText,
    retry: false,
    placeholderData: (previous) => previous,
    queryFn: () =>
      must(
        admin.POST('/admin/applications/{app}/campaign-preview', {
          params: { path: { app } },
          body: { campaign: JSON.parse(settled) as Record<string, unknown>, ...(editing ? { id: campaign } : {}) },
        }),
      ),
  });

  const save = useMutation({
    mutationFn: async () => {
      if (editing)
        return must(
          admin.PATCH('/admin/applications/{app}/campaigns/{campaign}', {
            params: { path: { app, campaign: campaign! } },
            body: body as never,
          }),
        );
      return must(admin.POST('/admin/applications/{app}/campaigns', { params: { path: { app } }, body: body as never }));
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['campaigns', app] });
      await queries.invalidateQueries({ queryKey: ['campaign', app, campaign] });
      window.location.hash = hrefOf({ page: 'campaigns', app });
    },
  });

  const failure = save.error ?? (started && preview.error && settled === bodyText ? preview.error : null);
  const errors: Errors = failure instanceof ApiFailure ? (failure.body.fields ?? {}) : {};
  const title = editing ? `Edit ${saved.data?.name ?? 'campaign'}` : 'New campaign';
  if (!draft) {
    return (
      <>
        <h1>{title}</h1>
        <ErrorLine error={saved.error} />
        {!saved.error && <p className="loading">Loading…</p>}
      </>
    );
  }
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const shown = new Set<string>();
  /** The message for `path`; `deep`: or for a part of it (an `in` list's third value: `….value.2`). */
  const err = (path: string, deep = false) => {
    const key = path in errors ? path : deep ? Object.keys(errors).find((k) => k.startsWith(`${path}.`)) : undefined;
    if (key === undefined) return undefined;
    shown.add(key);
    return errors[key];
  };
  const form = (
    <CampaignForm draft={draft} set={set} err={err} editing={editing} wallets={wallets.data?.wallets.map((w) => w.wallet_id) ?? []} />
  );
  // Problems not shown beside a field (a field the form does not render, or none at all) are said above Save.
  const elsewhere = Object.entries(errors).filter(([path]) => !shown.has(path));
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <a href={hrefOf({ page: 'campaigns', app })}>{app}</a> / {title}
      </p>
      <h1>{title}</h1>
      {!who.canChange && <p className="hint">Your role ({who.role}) can read this campaign, not change it.</p>}
      <div className="editor">
        <form
          aria-label="Campaign"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <fieldset disabled={!who.canChange} className="plain">
            {form}
            {elsewhere.length > 0 && (
              <ul role="alert" className="error">
                {elsewhere.map(([path, message]) => (
                  <li key={path}>{message}</li>
                ))}
              </ul>
            )}
            {failure && Object.keys(errors).length === 0 && <ErrorLine error={problemOf(failure)} />}
            {who.canChange && <button type="submit">{editing ? 'Save changes' : 'Create campaign'}</button>}
          </fieldset>
        </form>
        <aside aria-label="What customers can be told" className="preview">
          <h2>What customers can be told</h2>
          {preview.data && !preview.error ? (
            <>
              <p>
                Valid from {new Date(preview.data.valid_from).toLocaleString()}
                {preview.data.valid_until ? ` until ${new Date(preview.data.valid_until).toLocaleString()}` : ', no end'} (times without an
                offset are read in {preview.data.timezone}).
              </p>
              <ol data-testid="rule-texts">
                {preview.data.rule_texts.map((r) => (
                  <li key={r.rule}>
                    <q>{r.text}</q> <span className="hint">— {r.rule}</span>
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <p className="hint">{preview.isFetching ? 'Checking…' : 'Shown once the campaign can be saved.'}</p>
          )}
        </aside>
      </div>
    </>
  );
}

interface FormProps {
  draft: Draft;
  set: (change: Partial<Draft>) => void;
  err: (path: string, deep?: boolean) => string | undefined;
  editing: boolean;
  wallets: string[];
}

/**
 * A labelled control with the admin API's message for its path beside it — outside the label, so
 * the control's name stays its label; the message is its description (`aria-describedby`).
 */
function Labelled({
  label,
  path,
  err,
  deep,
  children,
}: {
  label: string;
  path: string;
  err: FormProps['err'];
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
          {message}
        </span>
      )}
    </div>
  );
}

function CampaignForm({ draft: d, set, err, editing, wallets }: FormProps) {
  const described = (path: string) => ({
    'aria-describedby': err(path) ? `error-${path}` : undefined,
    'aria-invalid': err(path) ? true : undefined,
  });
  return (
    <>
      <fieldset>
        <legend>Campaign</legend>
        <Labelled label="Name" path="name" err={err}>
          <input value={d.name} onChange={(e) => set({ name: e.target.value })} required {...described('name')} />
        </Labelled>
        <Labelled label="Description" path="description" err={err}>
          <input value={d.description} onChange={(e) => set({ description: e.target.value })} {...described('description')} />
        </Labelled>
        <Labelled label="Terms and conditions (one per line)" path="terms_and_conditions" err={err}>
          <textarea rows={2} value={d.terms} onChange={(e) => set({ terms: e.target.value })} />
        </Labelled>
        <Labelled label="Status" path="status" err={err}>
          <select value={d.status} onChange={(e) => set({ status: e.target.value as Draft['status'] })}>
            <option value="active">active</option>
            <option value="disabled">disabled</option>
          </select>
        </Labelled>
      </fieldset>

      <fieldset>
        <legend>Code</legend>
        <Labelled label="Code type" path="code_type" err={err}>
          <select value={d.code_type} disabled={editing} onChange={(e) => set({ code_type: e.target.value as Draft['code_type'] })}>
            <option value="fixed">fixed: one code, listed to customers</option>
            <option value="bulk">bulk: many codes, typed by customers</option>
          </select>
        </Labelled>
        {d.code_type === 'fixed' ? (
          <Labelled label="Code" path="code" err={err}>
            <input value={d.code} disabled={editing} onChange={(e) => set({ code: e.target.value })} {...described('code')} />
          </Labelled>
        ) : (
          <Labelled label="Uses per bulk code" path="bulk_code_usage_limit" err={err}>
            <input
              inputMode="numeric"
              value={d.bulk_code_usage_limit}
              onChange={(e) => set({ bulk_code_usage_limit: e.target.value })}
              {...described('bulk_code_usage_limit')}
            />
          </Labelled>
        )}
        <Labelled label="Who may use it" path="assignment" err={err}>
          <select value={d.assignment} onChange={(e) => set({ assignment: e.target.value as Draft['assignment'] })}>
            <option value="all_users">every customer</option>
            <option value="assigned_users">only the customers listed</option>
          </select>
        </Labelled>
        {d.assignment === 'assigned_users' && (
          <Labelled label="Customers (source ids, one per line)" path="assigned_source_ids" err={err}>
            <textarea
              rows={3}
              value={d.assigned}
              onChange={(e) => set({ assigned: e.target.value })}
              {...described('assigned_source_ids')}
            />
          </Labelled>
        )}
      </fieldset>

      <fieldset>
        <legend>Discount</legend>
        <Labelled label="Kind" path="discount.kind" err={err}>
          <select
            value={d.discount.kind}
            onChange={(e) => set({ discount: { ...d.discount, kind: e.target.value as 'discount' | 'cashback' } })}
          >
            <option value="discount">discount: lowers the amount to pay</option>
            <option value="cashback">cashback: credits a wallet on redeem</option>
          </select>
        </Labelled>
        <Labelled label="Type" path="discount.type" err={err}>
          <select
            value={d.discount.type}
            onChange={(e) => set({ discount: { ...d.discount, type: e.target.value as 'percentage' | 'flat' } })}
          >
            <option value="percentage">percentage</option>
            <option value="flat">flat amount</option>
          </select>
        </Labelled>
        <Labelled label={d.discount.type === 'percentage' ? 'Value (%)' : 'Value (amount)'} path="discount.value" err={err}>
          <input
            inputMode="decimal"
            value={d.discount.value}
            onChange={(e) => set({ discount: { ...d.discount, value: e.target.value } })}
            required
            {...described('discount.value')}
          />
        </Labelled>
        <Labelled label="At most (amount, empty: no cap)" path="discount.max" err={err}>
          <input
            inputMode="decimal"
            value={d.discount.max}
            onChange={(e) => set({ discount: { ...d.discount, max: e.target.value } })}
            {...described('discount.max')}
          />
        </Labelled>
        {d.discount.kind === 'cashback' && (
          <Labelled label="Cashback wallet" path="discount.wallet_id" err={err}>
            <select
              value={d.discount.wallet_id}
              onChange={(e) => set({ discount: { ...d.discount, wallet_id: e.target.value } })}
              {...described('discount.wallet_id')}
            >
              <option value="">none: report the cashback only</option>
              {wallets.map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
            </select>
          </Labelled>
        )}
        {d.discount.kind === 'cashback' && (
          <Labelled label="Cashback pending (days; empty: the wallet's setting)" path="discount.pending" err={err}>
            <input
              inputMode="numeric"
              value={d.discount.pending_days}
              placeholder={d.discount.pending_until ? `until ${d.discount.pending_until}` : ''}
              onChange={(e) => set({ discount: { ...d.discount, pending_days: e.target.value } })}
              {...described('discount.pending')}
            />
          </Labelled>
        )}
        <Labelled label="Computed on" path="discount_calculated_on_property" err={err}>
          <select value={d.base} onChange={(e) => set({ base: e.target.value as Draft['base'] })}>
            {BASES.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </Labelled>
      </fieldset>

      <fieldset>
        <legend>When</legend>
        <Labelled label="Valid from (e.g. 2026-12-01T00:00; empty: now)" path="valid_from" err={err}>
          <input value={d.valid_from} onChange={(e) => set({ valid_from: e.target.value })} {...described('valid_from')} />
        </Labelled>
        <Labelled label="Valid until (inclusive; empty: no end)" path="valid_until" err={err}>
          <input value={d.valid_until} onChange={(e) => set({ valid_until: e.target.value })} {...described('valid_until')} />
        </Labelled>
        <fieldset>
          <legend>Days of the week (none: every day)</legend>
          {DAYS.map((name, i) => (
            <label key={name} className="inline">
              <input
                type="checkbox"
                checked={d.days.includes(i + 1)}
                onChange={(e) => set({ days: e.target.checked ? [...d.days, i + 1] : d.days.filter((x) => x !== i + 1) })}
              />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        <Rows
          legend="Hours (none: all day; an end before the start wraps past midnight)"
          add="Add hours"
          rows={d.hours}
          onChange={(hours) => set({ hours })}
          fresh={() => ({ from: '09:00', to: '17:00' })}
          render={(h, i, change) => (
            <>
              <Labelled label={`Hours ${i + 1} from`} path={`schedule.hours.${i}.from`} err={err}>
                <input value={h.from} onChange={(e) => change({ ...h, from: e.target.value })} {...described(`schedule.hours.${i}.from`)} />
              </Labelled>
              <Labelled label={`Hours ${i + 1} to`} path={`schedule.hours.${i}.to`} err={err}>
                <input value={h.to} onChange={(e) => change({ ...h, to: e.target.value })} {...described(`schedule.hours.${i}.to`)} />
              </Labelled>
            </>
          )}
        />
      </fieldset>

      <fieldset>
        <legend>Limits (empty: unlimited)</legend>
        {LIMITS.map((k) => (
          <Labelled key={k} label={`Limit ${k.replace('_', ' ')}`} path={`limits.${k}`} err={err}>
            <input
              inputMode="numeric"
              value={d.limits[k]}
              onChange={(e) => set({ limits: { ...d.limits, [k]: e.target.value } })}
              {...described(`limits.${k}`)}
            />
          </Labelled>
        ))}
      </fieldset>

      <Conditions
        legend="Cart conditions"
        name="Cart condition"
        path="cart_conditions"
        rows={d.cart_conditions}
        fields={[...CART_FIELDS, ...metadataFields(d.metadata_keys, 'order')]}
        onChange={(cart_conditions) => set({ cart_conditions })}
        err={err}
      />
      <Selector
        legend="Item selector (the items the discount is for)"
        path="item_selector"
        selector={d.item_selector}
        properties={[...ITEM_PROPERTIES, ...metadataFields(d.metadata_keys, 'item')]}
        onChange={(item_selector) => set({ item_selector })}
        err={err}
      />
      <Conditions
        legend="Selected items validations (all must hold)"
        name="Selected items validation"
        path="selected_items_validations"
        rows={d.selected_items_validations}
        fields={[...SELECTED_FIELDS]}
        onChange={(selected_items_validations) => set({ selected_items_validations })}
        err={err}
      />
      <Conditions
        legend="Product validations (each item)"
        name="Product validation"
        path="product_validations"
        rows={d.product_validations}
        fields={[...PRODUCT_FIELDS, ...metadataFields(d.metadata_keys, 'item')]}
        onChange={(product_validations) => set({ product_validations })}
        err={err}
      />
      <Selector
        legend="Excluded items (for valid_cart_* bases)"
        path="excluded_items"
        selector={d.excluded_items}
        properties={[...ITEM_PROPERTIES, ...metadataFields(d.metadata_keys, 'item')]}
        onChange={(excluded_items) => set({ excluded_items })}
        err={err}
      />
      <Rows<MetadataKeyRow>
        legend="Metadata keys (the only metadata rules can read)"
        add="Add metadata key"
        rows={d.metadata_keys}
        onChange={(metadata_keys) => set({ metadata_keys })}
        fresh={() => ({ key: '', type: 'string', scope: 'both' })}
        render={(k, i, change) => (
          <>
            <Labelled label={`Metadata key ${i + 1}`} path={`metadata_keys.${i}.key`} err={err}>
              <input value={k.key} onChange={(e) => change({ ...k, key: e.target.value })} {...described(`metadata_keys.${i}.key`)} />
            </Labelled>
            <Labelled label={`Metadata key ${i + 1} type`} path={`metadata_keys.${i}.type`} err={err}>
              <select value={k.type} onChange={(e) => change({ ...k, type: e.target.value as MetadataKeyRow['type'] })}>
                <option value="string">string</option>
                <option value="number">number</option>
                <option value="boolean">boolean</option>
              </select>
            </Labelled>
            <Labelled label={`Metadata key ${i + 1} read in`} path={`metadata_keys.${i}.scope`} err={err}>
              <select value={k.scope} onChange={(e) => change({ ...k, scope: e.target.value as MetadataKeyRow['scope'] })}>
                <option value="both">order and items</option>
                <option value="order">order</option>
                <option value="item">items</option>
              </select>
            </Labelled>
          </>
        )}
      />
    </>
  );
}

function metadataFields(keys: MetadataKeyRow[], level: 'order' | 'item'): string[] {
  return keys.filter((k) => k.key.trim() && (k.scope === 'both' || k.scope === level)).map((k) => `metadata.${k.key.trim()}`);
}

/** A list of rows with add and remove. */
function Rows<T>({
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

function Conditions({
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
  err: FormProps['err'];
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
            <select value={c.field} onChange={(e) => change({ ...c, field: e.target.value })}>
              {(fields.includes(c.field) ? fields : [c.field, ...fields]).map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </Labelled>
          <Labelled label={`${name} ${i + 1} operator`} path={`${path}.${i}.operator`} err={err}>
            <select value={c.operator} onChange={(e) => change({ ...c, operator: e.target.value as ConditionRow['operator'] })}>
              {OPERATORS.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
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

function Selector({
  legend,
  path,
  selector: s,
  properties,
  onChange,
  err,
}: {
  legend: string;
  path: string;
  selector: SelectorDraft;
  properties: string[];
  onChange: (s: SelectorDraft) => void;
  err: FormProps['err'];
}) {
  const message = err(path);
  return (
    <fieldset>
      <legend>{legend}</legend>
      <label className="inline">
        <input type="checkbox" checked={s.enabled} onChange={(e) => onChange({ ...s, enabled: e.target.checked })} /> Use{' '}
        {path.replace('_', ' ')}
      </label>
      {message && <span className="field-error">{message}</span>}
      {s.enabled && (
        <>
          <Labelled label={`${legend.split(' (')[0]}: match`} path={`${path}.match`} err={err}>
            <select value={s.match} onChange={(e) => onChange({ ...s, match: e.target.value as 'AND' | 'OR' })}>
              <option value="AND">AND: every test holds</option>
              <option value="OR">OR: any test holds</option>
            </select>
          </Labelled>
          {s.properties.map((p, i) => (
            <div className="rule-row" key={i}>
              <Labelled label={`${path} test ${i + 1} property`} path={`${path}.properties.${i}.property`} err={err}>
                <select
                  value={p.property}
                  onChange={(e) =>
                    onChange({ ...s, properties: s.properties.map((x, j) => (j === i ? { ...p, property: e.target.value } : x)) })
                  }
                >
                  {(properties.includes(p.property) ? properties : [p.property, ...properties]).map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </Labelled>
              <Labelled label={`${path} test ${i + 1} operator`} path={`${path}.properties.${i}.operator`} err={err}>
                <select
                  value={p.operator}
                  onChange={(e) =>
                    onChange({
                      ...s,
                      properties: s.properties.map((x, j) => (j === i ? { ...p, operator: e.target.value as typeof p.operator } : x)),
                    })
                  }
                >
                  {SELECTOR_OPERATORS.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </select>
              </Labelled>
              <Labelled label={`${path} test ${i + 1} values (comma-separated)`} path={`${path}.properties.${i}.values`} err={err} deep>
                <input
                  value={p.values}
                  onChange={(e) =>
                    onChange({ ...s, properties: s.properties.map((x, j) => (j === i ? { ...p, values: e.target.value } : x)) })
                  }
                />
              </Labelled>
              <button
                type="button"
                className="link"
                onClick={() => onChange({ ...s, properties: s.properties.filter((_, j) => j !== i) })}
                aria-label={`Remove ${path} test ${i + 1}`}
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
