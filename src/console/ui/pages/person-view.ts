/** An actor as `GET /api/people` answers: tokens by public id, never a secret. */
export interface TokenRow {
  token_id: string;
  label: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  state: 'active' | 'expired' | 'revoked';
}

export interface Person {
  actor_id: string;
  kind: 'human' | 'agent' | 'service';
  roles: string[];
  manager: string | null;
  display_name: string | null;
  cert_subject: string | null;
  created_at: string;
  tokens: TokenRow[];
  permissions: { capability: string; granted_at: string }[];
  manages: string[];
}

export interface Entitlement {
  entitlement_id: string;
  capability: string;
  status: string;
  granted_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
}
