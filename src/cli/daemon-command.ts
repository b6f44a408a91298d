import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { daemonAddressFile, readDaemonAddress } from '../store/daemon-address.js';
import { DataDir, resolveDataDir } from '../store/data-dir.js';
import { dataDirFlag, SvcCommand } from './base-command.js';
import { clientSettings, DaemonClient, type LocalDaemon } from './daemon-client.js';

export const daemonFlags = {
  endpoint: Flags.string({
    summary:
      "The daemon base URL (default: $SVC_ENDPOINT, else the address the data dir's daemon recorded, else https://127.0.0.1:8090).",
    helpGroup: 'DAEMON',
  }),
  'ca-cert': Flags.string({
    summary:
      "PEM certificate to trust for https, exactly (default: $SVC_CA_CERT, else the data dir's deployment certificate for its own daemon).",
    helpGroup: 'DAEMON',
  }),
  ...dataDirFlag,
};

/** What the data dir says about the daemon it runs: read only when no endpoint is given. */
export function localDaemon(dir: DataDir): LocalDaemon {
  return {
    address: readDaemonAddress(dir),
    addressFile: daemonAddressFile(dir),
    deploymentCert: existsSync(dir.tlsCert) ? dir.tlsCert : undefined,
  };
}

/** Commands that act through a running daemon, authenticated by $SVC_TOKEN. */
export abstract class DaemonCommand extends SvcCommand {
  static override baseFlags = { ...daemonFlags };

  /** Connect, run, and always release the connection pool. */
  protected async withDaemon<T>(
    flags: { endpoint?: string | undefined; 'ca-cert'?: string | undefined; 'data-dir'?: string | undefined },
    fn: (client: DaemonClient) => Promise<T>,
  ): Promise<T> {
    const dir = new DataDir(resolveDataDir(flags['data-dir'], process.env, process.cwd()));
    const client = new DaemonClient(clientSettings(flags, process.env, localDaemon(dir)));
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }
}

export const MAX_PAGE_SIZE = 200;

export const pageFlags = {
  limit: Flags.integer({
    summary: `Page size, 1 to ${MAX_PAGE_SIZE} (default 50; with --all, ${MAX_PAGE_SIZE}).`,
    min: 1,
    max: MAX_PAGE_SIZE,
  }),
  cursor: Flags.string({ summary: 'Continue from the next_cursor of a previous page.' }),
  all: Flags.boolean({ summary: 'Follow next_cursor to the last page.', exclusive: ['cursor'] }),
};

/** The page size to ask for: as given, else the largest when following every page (fewer round trips). */
export function pageLimit(flags: { limit?: number | undefined; all: boolean }): number | undefined {
  return flags.limit ?? (flags.all ? MAX_PAGE_SIZE : undefined);
}
