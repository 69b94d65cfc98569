/**
 * `.dockerignore` read and matched the way Docker does (moby/patternmatcher and its ignorefile
 * reader): `#` lines are comments, each pattern is cleaned and made relative to the context, `*` and
 * `?` stop at `/`, `**` spans any number of directories, a path is excluded when it or one of its
 * parent directories matches, and a later `!pattern` re-includes. Paths are the context's,
 * `/`-separated, without a leading `./`.
 */
import { posix } from 'node:path';

export interface IgnoreRule {
  /** The pattern as written after cleaning, without its `!`. */
  pattern: string;
  /** A `!pattern`: re-includes what it matches. */
  exclusion: boolean;
  regex: RegExp;
}

/** Characters Go's filepath.Match gives no meaning to but a regular expression does. */
const LITERAL = new Set(['.', '+', '(', ')', '|', '{', '}', '$', '^']);

function compile(pattern: string): RegExp {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') i++; // `**/` is `**`
        // `**` at the end accepts everything; elsewhere any number of directories, none included.
        re += i + 1 >= pattern.length ? '.*' : '(.*/)?';
      } else {
        re += '[^/]*';
      }
    } else if (ch === '?') {
      re += '[^/]';
    } else if (ch === '\\') {
      re += i + 1 < pattern.length ? `\\${pattern[++i]}` : '\\\\';
    } else if (LITERAL.has(ch)) {
      re += `\\${ch}`;
    } else {
      re += ch; // `[`, `]` keep their class meaning, as in filepath.Match
    }
  }
  return new RegExp(`${re}$`);
}

export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (raw.startsWith('#')) continue;
    let pattern = raw.trim();
    if (!pattern) continue;
    const exclusion = pattern.startsWith('!');
    if (exclusion) pattern = pattern.slice(1).trim();
    if (!pattern) continue;
    pattern = posix.normalize(pattern).replace(/\/+$/, '');
    if (pattern.length > 1 && pattern.startsWith('/')) pattern = pattern.slice(1);
    rules.push({ pattern, exclusion, regex: compile(pattern) });
  }
  return rules;
}

/** moby's MatchesOrParentMatches: the last rule that matches the path or a parent of it decides. */
export function isIgnored(rules: IgnoreRule[], path: string): boolean {
  const parents = posix.dirname(path) === '.' ? [] : posix.dirname(path).split('/');
  let ignored = false;
  for (const rule of rules) {
    if (rule.exclusion !== ignored) continue; // nothing to change
    let match = rule.regex.test(path);
    for (let i = 0; !match && i < parents.length; i++) match = rule.regex.test(parents.slice(0, i + 1).join('/'));
    if (match) ignored = !rule.exclusion;
  }
  return ignored;
}
