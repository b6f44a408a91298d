/** A relative link of a Markdown page: where it is and what it names. */
export interface DocLink {
  /** 1-based line */
  line: number;
  /** the path part, '' for a link within the page */
  path: string;
  /** the fragment without '#', or undefined */
  anchor: string | undefined;
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function prose(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence !== undefined) {
      if (open && text.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (open) {
      fence = open[1]!;
      return;
    }
    out.push({ line: i + 1, text });
  });
  return out;
}

/**
 * The anchor GitHub gives a heading: its rendered text lower-cased, everything but letters,
 * marks, digits, `_`, `-` and spaces dropped, spaces made `-`; a repeat gets `-1`, `-2` ...
 * (the rules of github-slugger, which GitHub's renderer follows).
 */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of prose(markdown)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!h) continue;
    const rendered = h[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '')
      .replace(/\*+/g, '');
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    let slug = base;
    while (anchors.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    anchors.add(slug);
  }
  return anchors;
}

/** Every inline link and image of a page that stays in the repository (not a URL, not mail). */
export function relativeLinks(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { line, text } of prose(markdown)) {
    // inline code is text, not a link
    const plain = text.replace(/(`+)[^`]*?\1/g, '');
    for (const m of plain.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      links.push({
        line,
        path: hash === -1 ? target : target.slice(0, hash),
        anchor: hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1)),
      });
    }
  }
  return links;
}
