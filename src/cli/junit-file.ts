import { writeAtomically } from '../export/export-file.js';

/** Writes a JUnit report whole or not at all: CI must never read half a report as a pass. */
export async function writeJunitFile(path: string, xml: string): Promise<void> {
  await writeAtomically(
    path,
    (out) =>
      new Promise<void>((resolve, reject) => {
        out.once('error', reject);
        out.end(xml, () => resolve());
      }),
  );
}
