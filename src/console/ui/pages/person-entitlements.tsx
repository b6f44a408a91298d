import { useState } from 'preact/hooks';
import { Confirm, Outcome, RevokeCell, useWrite } from './admin-form.js';
import { Id, When } from './common.js';
import type { Entitlement, Person } from './person-view.js';

const personLink = (id: string) => <a href={`#/people/${encodeURIComponent(id)}`}>{id}</a>;

/** A person's entitlements; those the store lets revoke one do so after a confirmation. */
export function PersonEntitlements({
  person,
  entitlements,
  mayRevoke,
  onChange,
}: {
  person: Person;
  entitlements: Entitlement[];
  mayRevoke: boolean;
  onChange: () => void;
}) {
  const [revoking, setRevoking] = useState<Entitlement | null>(null);
  const revoke = useWrite();
  const confirmRevoke = async () => {
    const e = revoking;
    setRevoking(null);
    if (e === null) return;
    const done = await revoke.send<{ receipt: { receipt_id: string } }>(
      `/api/entitlements/${encodeURIComponent(e.entitlement_id)}/revoke`,
      {},
      (r) =>
        `Revoked ${person.actor_id}'s entitlement on ${e.capability}; journaled as receipt ${r.receipt.receipt_id}.`,
    );
    if (done) onChange();
  };
  return (
    <>
      <h3>Entitlements</h3>
      {entitlements.length === 0 ? (
        <p class="empty" id="no-entitlements">
          No entitlements. An agent gets one when its manager approves an access request.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="entitlements">
            <thead>
              <tr>
                <th>Entitlement</th>
                <th>Capability</th>
                <th>Status</th>
                <th>Granted by</th>
                <th>Expires</th>
                <th>Revoked</th>
                {mayRevoke && <th>Action</th>}
              </tr>
            </thead>
            <tbody>
              {entitlements.map((e) => (
                <tr key={e.entitlement_id} data-entitlement={e.entitlement_id}>
                  <td>
                    <Id value={e.entitlement_id} label="entitlement id" />
                  </td>
                  <td>{e.capability}</td>
                  <td>{e.status}</td>
                  <td>{e.granted_by ? personLink(e.granted_by) : '–'}</td>
                  <td>
                    <When iso={e.expires_at} />
                  </td>
                  <td>{e.revoked_at ? <When iso={e.revoked_at} /> : '–'}</td>
                  {mayRevoke && (
                    <RevokeCell
                      show={e.status === 'active'}
                      label={`revoke entitlement on ${e.capability}`}
                      onRevoke={() => setRevoking(e)}
                    />
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Outcome state={revoke.state} fields={[]} />
      {revoking !== null && (
        <Confirm
          title={`Revoke ${person.actor_id}'s entitlement on ${revoking.capability}?`}
          action="Revoke entitlement"
          onConfirm={() => void confirmRevoke()}
          onCancel={() => setRevoking(null)}
        >
          <p>New decisions that rely on it are refused at once, and the revocation is journaled.</p>
        </Confirm>
      )}
    </>
  );
}
