/**
 * The admin API's refusal of one input, said as a sentence about the field the manager sees.
 * The admin API names inputs by their paths in its validation wording (`"points_expiry.amount"
 * must be greater than or equal to 1`), which stays as it is for its other clients; the console
 * says it with the form's label: "Number of months must be at least 1." A message that does not
 * name a path (a sentence of the service's own, or the editor's own check) is kept as it is, and
 * unknown validation wording is kept after the label: never hidden.
 */

/** Validation phrases, in the order they are tried (longer ones before their prefixes). */
const PHRASES: [RegExp, (...m: string[]) => string][] = [
  [/^length must be less than or equal to (\d+) characters long$/, (n) => `must be at most ${n} characters`],
  [/^length must be at least (\d+) characters long$/, (n) => `must be at least ${n} characters`],
  [/^length must be (\d+) characters long$/, (n) => `must be exactly ${n} characters`],
  [/^must contain less than or equal to (\d+) items$/, (n) => `can hold at most ${n}`],
  [/^must contain at least (\d+) items$/, (n) => `needs at least ${n}`],
  [/^must be greater than or equal to (-?[\d.]+)$/, (n) => `must be at least ${n}`],
  [/^must be less than or equal to (-?[\d.]+)$/, (n) => `must be at most ${n}`],
  [/^must be greater than (-?[\d.]+)$/, (n) => `must be more than ${n}`],
  [/^must be less than (-?[\d.]+)$/, (n) => `must be less than ${n}`],
  [/^must be a positive number$/, () => 'must be more than 0'],
  [/^must be an integer$/, () => 'must be a whole number'],
  [/^must be a number$/, () => 'must be a number'],
  [/^must be a string$/, () => 'must be text'],
  [/^must be a boolean$/, () => 'must be yes or no'],
  [/^must be a valid email$/, () => 'must be an email address'],
  [/^must be a valid uri$/, () => 'must be a web address (https://…)'],
  [/^must be a valid date$|^must be in ISO 8601 date format$/, () => 'must be a date and time'],
  [/^must be one of \[(.*)\]$/, (list) => `must be one of: ${list.split(', ').join(', ')}`],
  [/^must have at most (\d+) decimals?$/, (n) => `can have at most ${n} decimal places`],
  [/^must have at most (\d+) decimal places$/, (n) => `can have at most ${n} decimal places`],
  [/^(?:with value ".*" )?fails to match the required pattern: (.*)$/s, (pattern) => patternInWords(pattern)],
  [/^(?:with value ".*" )?fails to match the (.*) pattern$/s, (name) => patternInWords(name)],
  [/^is required$/, () => 'is required'],
  [/^is not allowed to be empty$/, () => 'cannot be empty'],
  [/^is not allowed$/, () => 'is not accepted here'],
  [/^must be \[(.*)\]$/, (v) => `must be ${v}`],
];

/** What a pattern the admin API checks asks for, in words. */
function patternInWords(pattern: string): string {
  if (pattern.includes('A-Za-z0-9_-') || pattern === 'category') return 'may use only letters, digits, “-” and “_”';
  if (pattern.includes('A-Za-z0-9_')) return 'may use only letters, digits and “_”';
  if (pattern.includes('A-Z]{3}') || pattern === 'ISO 4217 code') return 'must be three capital letters, like EUR';
  if (pattern === 'ISO date-time') return 'must be a date and time';
  if (pattern.includes('[0-5]')) return 'must be a time of day, like 09:30';
  return 'is not written the way it should be';
}

/** A label without its hint in brackets: "Number of months (1–3650)" → "Number of months". */
const bare = (label: string) => label.replace(/\s*\([^)]*\)\s*$/, '');

/** `message` (the admin API's, for one input) as a sentence about the field labelled `label`. */
export function sentenceOf(message: string, label: string): string {
  const quoted = /^"[^"]*"\s+(.*)$/s.exec(message.trim());
  if (!quoted) return message;
  const rest = quoted[1]!;
  for (const [pattern, say] of PHRASES) {
    const m = pattern.exec(rest);
    if (m) return `${bare(label)} ${say(...m.slice(1))}.`;
  }
  // Wording not known here: kept whole, the field named first.
  return `${bare(label)} ${rest.replace(/\.$/, '')}.`;
}
