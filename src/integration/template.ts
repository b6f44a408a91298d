/**
 * `{name}` placeholders in an operation's path, query and header templates. A template is
 * parsed once, when the document is read, so a malformed one stops the daemon at start-up
 * rather than failing an agent's request.
 */
export type TemplatePart = { literal: string } | { param: string };

const PARAM = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    const close = text.indexOf('}', i);
    if (close >= 0 && (open < 0 || close < open))
      throw new Error(`an unmatched "}" at character ${close + 1}`);
    if (open < 0) {
      parts.push({ literal: text.slice(i) });
      break;
    }
    if (open > i) parts.push({ literal: text.slice(i, open) });
    const end = text.indexOf('}', open);
    const name = end < 0 ? '' : text.slice(open + 1, end);
    if (end < 0 || !PARAM.test(name)) {
      throw new Error(
        `a placeholder at character ${open + 1} is not {name} with a name of letters, digits and "_"`,
      );
    }
    parts.push({ param: name });
    i = end + 1;
  }
  return parts;
}

export function templateParams(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((p) => ('param' in p ? [p.param] : []));
}

/** Fill a template; `value` turns one parameter into text (encoding it for where it goes). */
export function fillTemplate(parts: readonly TemplatePart[], value: (param: string) => string): string {
  return parts.map((p) => ('param' in p ? value(p.param) : p.literal)).join('');
}
