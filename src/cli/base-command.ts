import { Command, Flags, type Interfaces } from '@oclif/core';
import chalk from 'chalk';
import type { SvcError } from '../core/errors.js';
import { DataDir, resolveDataDir } from '../store/data-dir.js';
import { openStore } from '../store/open.js';
import { pkcs11Choice, type Pkcs11FlagValues } from './pkcs11-flags.js';
import type { Store } from '../store/ports.js';
import { asSvcError, exitCodeFor } from './exit-codes.js';
import {
  PageFailure,
  ReportedError,
  sink,
  writeJsonList,
  writeTableList,
  type Column,
  type Page,
} from './list-output.js';
import { withRemedy } from './remedies.js';

/**
 * Every svc command: `--json` with a stable result on stdout, human text otherwise,
 * coded errors with meaningful exit codes, and never a stack trace for a user mistake.
 */
export abstract class SvcCommand extends Command {
  static override enableJsonFlag = true;

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (err instanceof ReportedError) {
      process.exitCode = exitCodeFor(err.error);
      return undefined;
    }
    // A reader that stopped reading (`| head`) is not a failure to report.
    if ((err as { code?: string }).code === 'EPIPE') return undefined;
    const resume = err instanceof PageFailure ? err.cursor : undefined;
    const coded: SvcError = withRemedy(
      asSvcError(err instanceof PageFailure ? err.error : err),
      this.id,
      this.config.commandIDs,
    );
    process.exitCode = exitCodeFor(coded);
    if (this.jsonEnabled()) {
      this.logJson({ error: coded.toBody() });
      return undefined;
    }
    this.logToStderr(`${chalk.red('Error:')} ${coded.reason}`);
    if (coded.remedy !== undefined) this.logToStderr(`${chalk.yellow('Remedy:')} ${coded.remedy}`);
    if (resume !== undefined)
      this.logToStderr(`The rows above are complete; resume with --cursor ${resume}.`);
    if (coded.kind === 'internal' && process.env.SVC_DEBUG === '1' && coded.cause instanceof Error) {
      this.logToStderr(coded.cause.stack ?? '');
    }
    return undefined;
  }

  /**
   * Human output, rendered only when it is shown: with --json the result object is the
   * output, and nothing is spent building text nobody reads.
   */
  protected show(render: () => string): void {
    if (this.jsonEnabled()) return;
    const text = render();
    if (text !== '') this.log(text);
  }

  /**
   * A list, written as its pages arrive: with --json `{"items", "next_cursor"}` streamed an
   * item at a time, otherwise a table. Memory holds a page, whatever the count. Returns
   * nothing: the output is already written, so oclif prints no result object.
   */
  protected async list<T>(pages: AsyncIterable<Page<T>>, columns: readonly Column<T>[]): Promise<void> {
    const { write, release } = sink(process.stdout);
    try {
      if (this.jsonEnabled()) {
        await writeJsonList(pages, write, (err) =>
          withRemedy(asSvcError(err), this.id, this.config.commandIDs),
        );
        return;
      }
      const r = await writeTableList(pages, columns, write);
      if (r.count === 0) this.note('(none)');
      if (r.next_cursor !== null) this.note(`More: --cursor ${r.next_cursor} (or --all)`);
    } finally {
      release();
    }
  }

  /** Human notes go to stderr so stdout stays clean for pipes and --json. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) this.logToStderr(message);
  }
}

export const dataDirFlag = {
  'data-dir': Flags.string({
    summary: 'The svc data dir (default: $SVC_HOME, else ./.svc).',
    helpGroup: 'GLOBAL',
  }),
};

export const storeFlag = {
  store: Flags.string({
    summary:
      "Where the store is: a postgres:// or postgresql:// URL (replicas share it; keep the password in PGPASSWORD or ~/.pgpass), or sqlite for the data dir's own database (default: $SVC_STORE, else sqlite).",
    helpGroup: 'GLOBAL',
  }),
};

type StoreFlags = {
  'data-dir'?: string | undefined;
  store?: string | undefined;
  'kek-file'?: string | undefined;
  'previous-kek-file'?: string | undefined;
} & Pkcs11FlagValues;

/** Commands that provision on the data dir directly (the daemon may be running). */
export abstract class DataDirCommand extends SvcCommand {
  static override baseFlags = { ...dataDirFlag, ...storeFlag };

  /** The data dir, and the store it works with: `--store`, else `$SVC_STORE`, else its SQLite file. */
  protected dataDir(flags: StoreFlags): DataDir {
    const root = resolveDataDir(flags['data-dir'], process.env, process.cwd());
    return new DataDir(
      root,
      flags.store ?? process.env.SVC_STORE,
      { kekFile: flags['kek-file'], previousKekFile: flags['previous-kek-file'] },
      pkcs11Choice(flags),
    );
  }

  /**
   * As `withStore`, for the commands that need only the database (`svc store replicas`): on
   * PostgreSQL no data dir is needed, so an operator's host that holds none can run them.
   */
  protected async withDatabase<T>(flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
    const dir = this.dataDir(flags);
    const store = dir.onPostgres ? await openStore(dir.store) : await dir.openStore();
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  }

  /** Open the store, run, and always close it. */
  protected async withStore<T>(
    flags: StoreFlags,
    fn: (store: Store, dir: DataDir) => Promise<T>,
  ): Promise<T> {
    const dir = this.dataDir(flags);
    const store = await dir.openStore();
    try {
      return await fn(store, dir);
    } finally {
      await store.close();
    }
  }
}

export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<T['flags'] & T['baseFlags']>;

export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY) && process.env.CI !== 'true';
}
