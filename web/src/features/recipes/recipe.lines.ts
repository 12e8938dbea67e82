/**
 * Where things are in a recipe's JSON text: a small JSON reader that keeps, for every value, the line its key (or,
 * in an array, the value itself) starts on, so the schema's issues (`steps.3.target`) are shown at their line; and
 * the line of a syntax error. It reads standard JSON only, as `JSON.parse` does.
 */

export type JsonPath = readonly (string | number)[];

export type LocatedJson = { ok: true; value: unknown; lines: Map<string, number> } | { ok: false; error: { line: number; message: string } };

const keyOf = (path: JsonPath) => path.map(String).join('\u0000');

class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads `text` as JSON, answering the value and the line (1-based) of every path in it, or the syntax error's line. */
export function locateJson(text: string): LocatedJson {
  let at = 0;
  let line = 1;
  const lines = new Map<string, number>();

  const fail = (message: string): never => {
    throw new JsonSyntaxError(line, message);
  };
  const space = () => {
    while (at < text.length) {
      const char = text[at];
      if (char === '\n') line += 1;
      else if (char !== ' ' && char !== '\t' && char !== '\r') return;
      at += 1;
    }
  };
  const describe = () => (at >= text.length ? 'the text ends too early' : `unexpected ${JSON.stringify(text[at])}`);
  const string = (): string => {
    const start = at;
    at += 1;
    while (at < text.length) {
      const char = text[at]!;
      if (char === '"') {
        at += 1;
        try {
          return JSON.parse(text.slice(start, at)) as string;
        } catch {
          return fail('A text has an invalid escape');
        }
      }
      if (char === '\\') at += 2;
      else if (char === '\n' || char < ' ') return fail('A text is not closed on its line (a " is missing)');
      else at += 1;
    }
    return fail('A text is not closed (a " is missing)');
  };
  const literal = (): unknown => {
    const match = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 400));
    if (!match) return fail(`Not JSON here: ${describe()}`);
    at += match[0].length;
    return JSON.parse(match[0]) as unknown;
  };
  const value = (path: (string | number)[]): unknown => {
    space();
    if (!lines.has(keyOf(path))) lines.set(keyOf(path), line);
    const char = text[at];
    if (char === '{') {
      at += 1;
      const out: Record<string, unknown> = {};
      space();
      if (text[at] === '}') {
        at += 1;
        return out;
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail(`A key in quotes is expected: ${describe()}`);
        const keyLine = line;
        const key = string();
        lines.set(keyOf([...path, key]), keyLine);
        space();
        if (text[at] !== ':') fail(`A ":" is expected after "${key}": ${describe()}`);
        at += 1;
        out[key] = value([...path, key]);
        space();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        if (text[at] === '}') {
          at += 1;
          return out;
        }
        return fail(`A "," or "}" is expected: ${describe()}`);
      }
    }
    if (char === '[') {
      at += 1;
      const out: unknown[] = [];
      space();
      if (text[at] === ']') {
        at += 1;
        return out;
      }
      for (;;) {
        out.push(value([...path, out.length]));
        space();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        if (text[at] === ']') {
          at += 1;
          return out;
        }
        return fail(`A "," or "]" is expected: ${describe()}`);
      }
    }
    if (char === '"') return string();
    return literal();
  };

  try {
    const result = value([]);
    space();
    if (at < text.length) fail(`Nothing may follow the document: ${describe()}`);
    return { ok: true, value: result, lines };
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, error: { line: error.line, message: error.message } };
    throw error;
  }
}

/**
 * The line of a path: its own where the text has it, else the nearest enclosing value's (a missing `target` is shown
 * on its step's line). 1 when nothing of it is there.
 */
export function lineOf(lines: Map<string, number>, path: JsonPath): number {
  for (let length = path.length; length >= 0; length -= 1) {
    const found = lines.get(keyOf(path.slice(0, length)));
    if (found !== undefined) return found;
  }
  return 1;
}
