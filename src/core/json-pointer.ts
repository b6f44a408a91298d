/** RFC 6901 JSON Pointer: "" is the whole document, "/a/0/b~1c" walks keys and indexes. */
export function isJsonPointer(text: string): boolean {
  return text === '' || (text.startsWith('/') && !/~[^01]|~$/.test(text));
}

export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (!isJsonPointer(pointer)) return undefined;
  if (pointer === '') return doc;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      // Array indexes are decimal without leading zeros; "-" (past the end) never resolves.
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === 'object' && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return node;
}
