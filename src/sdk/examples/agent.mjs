// An example agent: asks the daemon before acting, then reports what it decided.
//   node src/sdk/examples/agent.mjs [capability] [action] [task]
// Configuration: SVC_ENDPOINT, SVC_TOKEN, SVC_CA_CERT. Capability, action and task come from
// the arguments, else SVC_EXAMPLE_CAPABILITY, SVC_EXAMPLE_ACTION and SVC_EXAMPLE_TASK, else
// the first capability the token may use (one not brokered first: those take parameters)
// and the first active task it can read.
import { SvcClient } from 'svc/sdk';

const client = new SvcClient();
try {
  const mine = await client.capabilities();
  const env = process.env;
  const [argCapability, argAction, argTask] = process.argv.slice(2);
  const wanted = argCapability ?? env.SVC_EXAMPLE_CAPABILITY;
  const cap = wanted
    ? mine.capabilities.find((c) => c.name === wanted)
    : (mine.capabilities.find((c) => c.custody !== 'brokered') ?? mine.capabilities[0]);
  if (!cap) throw new Error(`${mine.actor_id} may use no capability${wanted ? ` named ${wanted}` : ''}`);
  const task =
    argTask ?? env.SVC_EXAMPLE_TASK ?? (await client.tasks({ status: 'active' })).items[0]?.task_id;
  if (!task) throw new Error('no active task: pass one as the third argument');
  const request = {
    capability: cap.name,
    action: argAction ?? env.SVC_EXAMPLE_ACTION ?? cap.actions[0],
    task_id: task,
    effect_key_step: `example-${Date.now()}`,
    intent: 'example agent run',
  };
  console.log(`${mine.actor_id} asks to ${request.action} ${request.capability} for task ${task}`);
  const out = cap.custody === 'brokered' ? await client.brokered(request) : await client.action(request);
  if (out.kind === 'allowed') console.log(`allowed: intent ${out.decision.intent_id}`);
  else if (out.kind === 'deferred')
    console.log(
      `deferred: waiting for approval ${out.approval_id}; approve it (svc approvals approve ${out.approval_id}), then resume with the same request`,
    );
  else if (out.kind === 'refused')
    console.log(`refused: ${out.reason}${out.remedy ? ` (remedy: ${out.remedy})` : ''}`);
  else if (out.kind === 'unknown') {
    const found = await client.reconcile(task, request.effect_key_step);
    console.log(`outcome unknown; the journal says: ${found.outcome ?? 'nothing yet'}`);
  } else console.log(`${out.kind}: ${out.reason}`);
} catch (err) {
  // A refused configuration or request is a coded error: say what to change.
  console.error(
    `${err.code ?? 'error'}: ${err.reason ?? err.message}${err.remedy ? ` (remedy: ${err.remedy})` : ''}`,
  );
  process.exitCode = 1;
} finally {
  await client.close();
}
