/** `1 entry`, `2 entries`: a count with its noun in the number it takes. */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
