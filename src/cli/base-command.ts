import { Command, Flags, type Interfaces } from '@oclif/core';
import chalk from 'chalk';
import type { SvcError } from '../core/errors.js';
import { DataDir, resolveDataDir } from '../store/data-dir.js';
import type { SqliteStore } from '../store/sqlite/store.js';
import { asSvcError, exitCodeFor } from './exit-codes.js';

/**
 * Every svc command: `--json` with a stable result on stdout, human text otherwise,
 * coded errors with meaningful exit codes, and never a stack trace for a user mistake.
 */
export abstract class SvcCommand extends Command {
  static override enableJsonFlag = true;

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const coded: SvcError = asSvcError(err);
    process.exitCode = exitCodeFor(coded);
    if (this.jsonEnabled()) {
      this.logJson({ error: coded.toBody() });
      return undefined;
    }
    this.logToStderr(`${chalk.red('Error:')} ${coded.reason}`);
    if (coded.remedy !== undefined) this.logToStderr(`${chalk.yellow('Remedy:')} ${coded.remedy}`);
    if (coded.kind === 'internal' && process.env.SVC_DEBUG === '1' && coded.cause instanceof Error) {
      this.logToStderr(coded.cause.stack ?? '');
    }
    return undefined;
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

/** Commands that provision on the data dir directly (the daemon may be running). */
export abstract class DataDirCommand extends SvcCommand {
  static override baseFlags = { ...dataDirFlag };

  protected dataDir(flags: { 'data-dir'?: string | undefined }): DataDir {
    return new DataDir(resolveDataDir(flags['data-dir'], process.env, process.cwd()));
  }

  /** Open the store, run, and always close it. */
  protected async withStore<T>(
    flags: { 'data-dir'?: string | undefined },
    fn: (store: SqliteStore, dir: DataDir) => Promise<T>,
  ): Promise<T> {
    const dir = this.dataDir(flags);
    const store = dir.openStore();
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
