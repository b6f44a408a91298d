import type { PgHost } from './connection-url.js';

/**
 * Which host of a multi-host URL new connections go to. libpq tries the hosts in order and
 * takes the first that qualifies; a pool opens connections one at a time, so the same walk
 * is spread over them: a connection that fails (refused, dropped, or to a host that accepts
 * no writes) moves the choice to the next host, and the next connection tries that one.
 * Once a host qualifies the choice stays there until it fails in turn: after a failover the
 * pool finds the promoted standby on its own, without a restart.
 */
export class HostSelector {
  private index = 0;

  constructor(readonly hosts: readonly PgHost[]) {
    if (hosts.length === 0) throw new Error('a host list is never empty');
  }

  /** Where the next connection goes. */
  current(): PgHost {
    return this.hosts[this.index] as PgHost;
  }

  /**
   * `host` failed. Only a failure of the current choice moves it: connections opened to the
   * same host together fail together, and must move the choice once, not past a good host.
   */
  failed(host: PgHost): void {
    if (this.hosts[this.index] !== host) return;
    this.index = (this.index + 1) % this.hosts.length;
  }
}
