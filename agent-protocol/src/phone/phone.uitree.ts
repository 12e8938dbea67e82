/**
 * Android's UI trees as XML: `uiautomator dump` (`<node>` elements) and the UiAutomator2 server's page source (the
 * same attributes on elements named by class). Both are written by Android's XML serializer (libcore's
 * KXmlSerializer, behind `Xml.newSerializer()`): an attribute value holding `"` goes in single quotes, others in double
 * quotes, with `&amp;` `&lt;` `&gt;`, the quote as `&quot;`/`&apos;`, newlines and tabs as `&#10;` `&#13;` `&#9;`, and
 * characters beyond the BMP as `&#NNNNNN;`. A regex that knows one quoting misreads the other, so trees are read
 * with saxes, a conformant XML parser: both quotings and every reference come out right, and a malformed tree is an
 * error rather than a silently empty text.
 *
 * A UI tree never carries a DOCTYPE. One that does is refused before its body is read, so no entity beyond XML's
 * five and numeric references is ever expanded (saxes knows no other, and the refusal says so plainly).
 */
import { SaxesParser } from 'saxes';

/** One element under `<hierarchy>`, in document order. */
export interface UiElement {
  /** `node` in a dump; the class name (`android.widget.TextView`) in a page source. */
  name: string;
  /** Attribute values, entities and character references resolved. */
  attributes: Record<string, string>;
  /** 0 for the hierarchy's own children. */
  depth: number;
  /** The parent's position in the list, or -1 for a child of `<hierarchy>`. */
  parent: number;
}

/** A screen's text that is not a UI tree Android would write: malformed XML, a DOCTYPE, no `<hierarchy>` root. */
export class UiTreeError extends Error {
  override readonly name = 'UiTreeError';
}

/**
 * Reads the elements under the tree's `<hierarchy>` root. Throws `UiTreeError` when the text is not well-formed XML,
 * declares a DOCTYPE, or has another root.
 */
export function readUiTree(xml: string): UiElement[] {
  const elements: UiElement[] = [];
  // Positions of the open elements, innermost last; the hierarchy itself is not among them.
  const open: number[] = [];
  let root: string | null = null;
  // Positions off: they cost a check per character and a refusal needs no line number to be understood.
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('doctype', () => {
    throw new UiTreeError('The screen was refused: its tree declares a DOCTYPE, which Android never writes (entities are not expanded).');
  });
  parser.on('opentag', (tag) => {
    if (root === null) {
      root = tag.name;
      if (root !== 'hierarchy') throw new UiTreeError(`This is not a UI tree (its root is <${root}>, not <hierarchy>).`);
      return;
    }
    elements.push({ name: tag.name, attributes: tag.attributes as Record<string, string>, depth: open.length, parent: open.at(-1) ?? -1 });
    // saxes reports a self-closing tag's close at once, so every element is pushed here and popped on close.
    open.push(elements.length - 1);
  });
  parser.on('closetag', (tag) => {
    if (tag.name !== 'hierarchy') open.pop();
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof UiTreeError) throw error;
    throw new UiTreeError(`The screen's tree is not well-formed XML (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (root === null) throw new UiTreeError('This is not a UI tree (no <hierarchy>).');
  return elements;
}

/**
 * ` name="value"` as Android's serializer writes an attribute (KXmlSerializer.attribute and writeEscaped): single
 * quotes when the value holds `"`, double quotes otherwise; `&`, `<`, `>` and that quote escaped; newline, return
 * and tab as character references; a character beyond the BMP (a surrogate pair in Java) as one `&#N;`.
 */
export function androidAttribute(name: string, value: string): string {
  const quote = value.includes('"') ? "'" : '"';
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '&') out += '&amp;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (char === quote) out += quote === '"' ? '&quot;' : '&apos;';
    else if (char === '\n' || char === '\r' || char === '\t' || code > 0xffff) out += `&#${code};`;
    else out += char;
  }
  return ` ${name}=${quote}${out}${quote}`;
}
