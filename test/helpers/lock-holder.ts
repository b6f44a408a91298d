import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface LockHolder {
  /** true from the child's BEGIN IMMEDIATE until its ROLLBACK */
  holding: () => boolean;
  release: () => Promise<void>;
}

const SCRIPT = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => {
  db.exec('ROLLBACK');
  db.close();
  process.stdout.write('released\\n');
  process.exit(0);
});
`;

/** A second, real process that takes SQLite's write lock on `file` and holds it until released. */
export async function holdWriteLock(file: string): Promise<LockHolder> {
  const child = spawn(process.execPath, ['-e', SCRIPT, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let holding = false;
  let out = '';
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(word)) resolve();
      };
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        check();
      });
      child.once('exit', (code) =>
        out.includes(word) ? resolve() : reject(new Error(`locker exited ${code}`)),
      );
      check();
    });
  await said('locked');
  holding = true;
  return {
    holding: () => holding,
    release: async () => {
      const exited = once(child, 'exit');
      child.stdin.write('release\n');
      await said('released');
      holding = false;
      await exited;
    },
  };
}
