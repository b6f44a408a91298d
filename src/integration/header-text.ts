/**
 * Whether text has a control character (C0 or DEL; a tab only when not allowed). Text that
 * goes into an HTTP header must have none: a line break would start another header.
 */
export function hasControlCharacter(text: string, o: { allowTab?: boolean } = {}): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && !(c === 0x09 && o.allowTab === true)) || c === 0x7f) return true;
  }
  return false;
}
