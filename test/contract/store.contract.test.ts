/**
 * The store contract: one suite, run against every adapter (SQLite, PostgreSQL), so both
 * keep the same observable behaviour behind the ports of src/store/*-ports.ts.
 *
 * To add the cases of a port:
 *   1. write test/contract/cases/<port>.ts exporting `function <port>Contract(h: () => StoreHarness): void`
 *      that declares `describe`/`it` blocks. Call `h()` inside hooks or tests (never at
 *      declaration time): `await h().open()` gives a fresh empty store, `h().reopen(store)`
 *      a second store on the same database. Assert only what the port promises (results,
 *      coded errors, order), never an adapter's SQL or tables.
 *   2. call it in the adapter loop below, after the others.
 * Seed through the ports, as provisioning and the daemon write (`tenantWith` in
 * cases/fixtures.ts, a decision to reserve budget or admit, an access request approved for
 * an entitlement), never with SQL: the suite then holds both adapters to what their ports
 * can reach. A case that only one adapter can honour (cross-replica signals, say), or that
 * needs a state no port can make, belongs in that adapter's own tests, not here.
 */
import { afterAll, describe } from 'vitest';
import { accessContract } from './cases/access.js';
import { decisionInputsContract } from './cases/decision-inputs.js';
import { decisionContract } from './cases/decisions.js';
import { identityContract } from './cases/identity.js';
import { notifyContract } from './cases/notify.js';
import { overviewContract } from './cases/overview.js';
import { policyHistoryContract } from './cases/policy-history.js';
import { policyShadowContract } from './cases/policy-shadow.js';
import { refusalOrderContract } from './cases/refusal-order.js';
import { registryContract } from './cases/registry.js';
import { surfaceContract } from './cases/surfaces.js';
import { tokenContract } from './cases/tokens.js';
import { contractAdapters, type StoreHarness } from './harness.js';

for (const adapter of await contractAdapters()) {
  if (adapter.skip !== undefined) console.warn(`store contract on ${adapter.name} skipped: ${adapter.skip}`);
  describe.skipIf(adapter.skip !== undefined)(`store contract: ${adapter.name}`, () => {
    let harness: StoreHarness | undefined;
    const h = (): StoreHarness => (harness ??= adapter.harness());
    afterAll(async () => {
      await harness?.cleanup();
    });
    identityContract(h);
    tokenContract(h);
    decisionContract(h);
    registryContract(h);
    accessContract(h);
    surfaceContract(h);
    refusalOrderContract(h);
    notifyContract(h);
    policyHistoryContract(h);
    decisionInputsContract(h);
    policyShadowContract(h);
    overviewContract(h);
  });
}
