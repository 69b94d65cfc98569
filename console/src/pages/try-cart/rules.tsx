/** The rules one promotion was checked against, each with its result and the figures it was decided on. */
export interface RuleCheck {
  rule: string;
  passed: boolean | null;
  text: string;
  figures: Record<string, unknown>;
}

export function RulesTable({ name, checks }: { name: string; checks: readonly RuleCheck[] }) {
  return (
    // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
    <div className="scroll" tabIndex={0} role="region" aria-label={`Rules of ${name}, scrolls sideways`}>
      <table tabIndex={0}>
        <caption className="visually-hidden">Rules of {name}</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Result</th>
            <th scope="col">What was checked</th>
            <th scope="col">Figures</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c, i) => (
            <tr key={i}>
              <td>
                <code>{c.rule}</code>
              </td>
              <td>{c.passed === null ? 'not reached' : c.passed ? 'passed' : 'failed'}</td>
              <td>{c.text}</td>
              <td>
                <Figures figures={c.figures} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Figures({ figures }: { figures: Record<string, unknown> }) {
  const entries = Object.entries(figures);
  if (entries.length === 0) return <>—</>;
  return (
    <dl className="figures">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
