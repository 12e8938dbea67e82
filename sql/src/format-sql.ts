/**
 * The layout of the committed query snapshots (`sql/queries/`): Kysely writes a statement on one line and a
 * hand-written template keeps its source's indentation, so both are laid out the same way here, one clause per line
 * with its items indented under it and each subquery indented inside its parentheses. A change to a query is then a
 * change of a few lines in review. Only whitespace moves: the tokens stay, and so does whether two were apart.
 */

interface Token {
  text: string;
  /** Lower-case text of a word, for matching keywords. */
  word: string;
  /** Whitespace stood before it in the source. */
  spaced: boolean;
}

/** A parenthesised group and what it holds, or a token. */
type Item = Token | Group;
interface Group {
  open: Token;
  items: Item[];
  close: Token | undefined;
}

const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\/\*[\s\S]*?\*\/|--[^\n]*|\$\d+|[A-Za-z_][A-Za-z0-9_$]*|\d+(?:\.\d+)?|::|->>|->|<>|<=|>=|!=|\|\||\S/g;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let end = 0;
  for (const match of text.matchAll(TOKEN)) {
    const at = match.index;
    tokens.push({ text: match[0], word: /^[A-Za-z_]/.test(match[0]) ? match[0].toLowerCase() : '', spaced: at > end });
    end = at + match[0].length;
  }
  return tokens;
}

function group(tokens: Token[]): Item[] {
  const root: Group = { open: tokens[0]!, items: [], close: undefined };
  const stack: Group[] = [root];
  for (const token of tokens) {
    const top = stack[stack.length - 1]!;
    if (token.text === '(') {
      const inner: Group = { open: token, items: [], close: undefined };
      top.items.push(inner);
      stack.push(inner);
    } else if (token.text === ')' && stack.length > 1) {
      top.close = token;
      stack.pop();
    } else {
      top.items.push(token);
    }
  }
  return root.items;
}

const isGroup = (item: Item | undefined): item is Group => item !== undefined && 'items' in item;
const wordOf = (item: Item | undefined) => (item === undefined || isGroup(item) ? '' : item.word);

/** Words that begin a statement: a group that starts with one is a subquery. */
const STATEMENTS = new Set(['select', 'with', 'insert', 'update', 'delete', 'values']);

/** A clause keyword, of one or more words, and how its body is laid out. */
interface Clause {
  words: string[];
  /** `list`: an item per line at top-level commas; `conditions`: a line per top-level `and`/`or`; `inline`: one line. */
  body: 'list' | 'conditions' | 'inline';
  /** A join: a line of the FROM clause's body rather than a clause of its own. */
  join?: boolean;
}

const CLAUSES: Clause[] = [
  { words: ['select'], body: 'list' },
  { words: ['insert', 'into'], body: 'inline' },
  { words: ['update'], body: 'inline' },
  { words: ['delete', 'from'], body: 'inline' },
  { words: ['values'], body: 'list' },
  { words: ['set'], body: 'list' },
  { words: ['from'], body: 'list' },
  { words: ['using'], body: 'list' },
  { words: ['where'], body: 'conditions' },
  { words: ['group', 'by'], body: 'list' },
  { words: ['having'], body: 'conditions' },
  { words: ['order', 'by'], body: 'list' },
  { words: ['limit'], body: 'inline' },
  { words: ['offset'], body: 'inline' },
  { words: ['returning'], body: 'list' },
  { words: ['on', 'conflict'], body: 'inline' },
  { words: ['for', 'update'], body: 'inline' },
  { words: ['for', 'no', 'key', 'update'], body: 'inline' },
  { words: ['for', 'share'], body: 'inline' },
  { words: ['union', 'all'], body: 'inline' },
  { words: ['union'], body: 'inline' },
  { words: ['except'], body: 'inline' },
  { words: ['intersect'], body: 'inline' },
  ...[['inner'], ['left'], ['left', 'outer'], ['right'], ['full'], ['cross'], []].map((kind) => ({
    words: [...kind, 'join'],
    body: 'inline' as const,
    join: true,
  })),
];
// Longest first, so `union all` wins over `union` and `for no key update` over nothing.
CLAUSES.sort((a, b) => b.words.length - a.words.length);

/** The clause starting at `items[i]` of a statement, if one does. */
function clauseAt(items: Item[], i: number): Clause | undefined {
  const first = wordOf(items[i]);
  if (!first) return undefined;
  // `is distinct from` compares and `on conflict … do update` goes on: they begin nothing.
  if (first === 'from' && wordOf(items[i - 1]) === 'distinct') return undefined;
  if (first === 'update' && wordOf(items[i - 1]) === 'do') return undefined;
  // `with` opens a statement only as its first word (`with ordinality` is part of a FROM item).
  if (first === 'with') return items.slice(0, i).every(isComment) ? { words: ['with'], body: 'list' } : undefined;
  return CLAUSES.find((clause) => clause.words.every((word, k) => wordOf(items[i + k]) === word));
}

const isComment = (item: Item) => !isGroup(item) && (item.text.startsWith('/*') || item.text.startsWith('--'));
const isStatement = (items: Item[]) => STATEMENTS.has(wordOf(items.find((item) => !isComment(item))));
const holdsStatement = (items: Item[]): boolean => items.some((item) => isGroup(item) && (isStatement(item.items) || holdsStatement(item.items)));

class Lines {
  readonly lines: string[] = [];
  private line = '';
  private indent = 0;

  /** Starts a new line at `indent` levels. */
  newline(indent: number): void {
    if (this.line.trim() !== '') this.lines.push(this.line.trimEnd());
    this.indent = indent;
    this.line = '  '.repeat(indent);
  }

  get depth(): number {
    return this.indent;
  }

  write(token: Token, spaced: boolean): void {
    const fresh = this.line.trim() === '';
    const after = this.line.at(-1);
    const glued = fresh || after === '(' || token.text === ')' || token.text === ',' || !spaced;
    this.line += (glued ? '' : ' ') + token.text;
  }

  done(): string[] {
    this.newline(0);
    return this.lines;
  }
}

/** Writes items on the current line; a subquery among them is laid out on lines of its own, one level deeper. */
function inline(out: Lines, items: Item[], leading = true): void {
  items.forEach((item, i) => {
    const spaced = leading || i > 0;
    if (!isGroup(item)) {
      out.write(item, item.spaced && spaced);
      if (item.text.startsWith('--')) out.newline(out.depth);
      return;
    }
    out.write(item.open, item.open.spaced && spaced);
    if (isStatement(item.items)) {
      const depth = out.depth;
      statement(out, item.items, depth + 1);
      out.newline(depth);
    } else {
      inline(out, item.items, false);
    }
    if (item.close) out.write(item.close, false);
  });
}

/** Splits a clause's body into lines: at top-level commas, or before top-level `and`/`or` (not a BETWEEN's `and`). */
function linesOf(items: Item[], body: Clause['body']): Item[][] {
  if (body === 'inline') return [items];
  const lines: Item[][] = [[]];
  let between = false;
  for (const item of items) {
    const word = wordOf(item);
    if (word === 'between') between = true;
    if (body === 'conditions' && (word === 'and' || word === 'or') && lines[lines.length - 1]!.length > 0) {
      if (word === 'and' && between) between = false;
      else {
        lines.push([item]);
        continue;
      }
    }
    lines[lines.length - 1]!.push(item);
    if (body === 'list' && !isGroup(item) && item.text === ',') lines.push([]);
  }
  return lines.filter((line) => line.length > 0);
}

/** Lays out one statement: each clause's keyword on a line at `depth`, its body under it. */
function statement(out: Lines, items: Item[], depth: number): void {
  let i = 0;
  const preamble: Item[] = [];
  while (i < items.length && !clauseAt(items, i)) preamble.push(items[i++]!);
  for (const item of preamble) {
    out.newline(depth);
    inline(out, [item]);
  }
  let inFrom = false;
  while (i < items.length) {
    const clause = clauseAt(items, i)!;
    const keyword = items.slice(i, i + clause.words.length) as Token[];
    i += clause.words.length;
    const body: Item[] = [];
    while (i < items.length && !clauseAt(items, i)) body.push(items[i++]!);
    const joined = clause.join === true && inFrom;
    out.newline(joined ? depth + 1 : depth);
    for (const [k, token] of keyword.entries()) out.write(token, k > 0);
    // `select distinct` and `select distinct on (…)` say how the statement selects, not what: beside the keyword.
    if (clause.words[0] === 'select' && wordOf(body[0]) === 'distinct') {
      const modifier = body.splice(0, wordOf(body[1]) === 'on' && isGroup(body[2]) ? 3 : 1);
      inline(out, modifier);
    }
    const lines = linesOf(body, clause.body);
    // A body of one line with no subquery stays beside its keyword.
    if (joined || clause.body === 'inline' || (lines.length === 1 && !holdsStatement(body))) {
      if (body.length > 0) inline(out, body);
    } else {
      for (const line of lines) {
        out.newline(depth + 1);
        inline(out, line, false);
      }
    }
    if (!clause.join) inFrom = clause.words[0] === 'from' || clause.words[0] === 'using' || clause.words[0] === 'update';
  }
}

/** The statement laid out on lines, two spaces per level. */
export function formatSql(text: string): string {
  const items = group(tokenize(text));
  if (items.length === 0) return '';
  const out = new Lines();
  statement(out, items, 0);
  return out.done().join('\n');
}
