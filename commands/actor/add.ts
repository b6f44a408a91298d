import { Flags } from '@oclif/core';
import { ACTOR_KINDS, ROLES } from '../../src/core/actor.js';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { addActor } from '../../src/provisioning/actor.js';
import { actorView, type ActorView } from '../../src/provisioning/actor-view.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

export default class ActorAdd extends DataDirCommand {
  static override summary =
    'Register an actor: a human (with roles), an agent (with its accountable manager) or a service.';
  static override examples = [
    '<%= config.bin %> actor add --tenant acme --id bob --kind human --role approver --role manager',
    '<%= config.bin %> actor add --tenant acme --id crm-agent --kind agent --manager bob',
    '<%= config.bin %> actor add --tenant acme --id billing --kind service --cert-subject "CN=billing, O=Acme"',
    '<%= config.bin %> actor add --tenant acme --id bob --kind human --role approver --chat-user-id U024BE7LH --collab-user-id 29f4e3a1-6c2b-4d0e-9a57-2b1d4c8e7f10',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    id: Flags.string({ summary: 'Actor id (a slug).', required: true }),
    kind: Flags.string({ summary: 'Kind of actor.', options: [...ACTOR_KINDS], required: true }),
    role: Flags.string({ summary: 'A role of a human (repeatable).', options: [...ROLES], multiple: true }),
    manager: Flags.string({ summary: 'The accountable human manager of an agent.' }),
    'cert-subject': Flags.string({
      summary: 'Client-certificate subject that identifies this actor in mutual-TLS mode.',
    }),
    'display-name': Flags.string({ summary: 'A human-readable name (never used to identify the actor).' }),
    'chat-user-id': Flags.string({
      summary: 'The team-chat user id that decides approvals as this human (compared exactly).',
    }),
    'collab-user-id': Flags.string({
      summary:
        'The collaboration-suite user object id that decides approvals as this human (compared exactly).',
    }),
  };

  async run(): Promise<ActorView> {
    const { flags } = await this.parse(ActorAdd);
    const actor = await this.withStore(flags, (store) =>
      addActor(
        store,
        {
          tenantId: flags.tenant,
          id: flags.id,
          kind: flags.kind,
          roles: flags.role ?? [],
          managerId: flags.manager ?? null,
          certSubject: flags['cert-subject'] ?? null,
          displayName: flags['display-name'] ?? null,
          chatUserId: flags['chat-user-id'] ?? null,
          collabUserId: flags['collab-user-id'] ?? null,
        },
        new Date(),
      ),
    );
    this.log(`Added ${actor.kind} ${actor.id} to tenant ${actor.tenantId}`);
    return actorView(actor);
  }
}
