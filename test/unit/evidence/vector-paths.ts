import { fileURLToPath } from 'node:url';

/** Where the committed test vectors live. */
export const VECTORS_DIR = fileURLToPath(new URL('../../vectors/', import.meta.url));
export const vectorPath = (relative: string): string => VECTORS_DIR + relative;
