"""An example agent: asks the daemon before acting, then reports what it decided.

    python3 agent.py [capability] [action] [task]

Configuration: SVC_ENDPOINT, SVC_TOKEN, SVC_CA_CERT. Capability, action and task come from
the arguments, else SVC_EXAMPLE_CAPABILITY, SVC_EXAMPLE_ACTION and SVC_EXAMPLE_TASK, else
the first capability the token may use (one not brokered first: those take parameters) and
the first active task it can read.
"""

import os
import sys
import time

from svc_sdk import Allowed, Deferred, OutcomeUnknown, Refused, SvcClient

client = SvcClient()
mine = client.capabilities()
args = sys.argv[1:] + [None] * 3
wanted = args[0] or os.environ.get("SVC_EXAMPLE_CAPABILITY")
caps = mine["capabilities"]
if wanted:
    cap = next((c for c in caps if c["name"] == wanted), None)
else:
    cap = next((c for c in caps if c["custody"] != "brokered"), caps[0] if caps else None)
if cap is None:
    sys.exit(f"{mine['actor_id']} may use no capability{' named ' + wanted if wanted else ''}")
task = args[2] or os.environ.get("SVC_EXAMPLE_TASK")
if task is None:
    tasks = client.tasks(status="active")["items"]
    task = tasks[0]["task_id"] if tasks else None
if task is None:
    sys.exit("no active task: pass one as the third argument")
request = dict(capability=cap["name"], action=args[1] or os.environ.get("SVC_EXAMPLE_ACTION") or cap["actions"][0], task_id=task,
               effect_key_step=f"example-{time.time_ns()}", intent="example agent run")
print(f"{mine['actor_id']} asks to {request['action']} {request['capability']} for task {task}")
out = client.brokered(**request) if cap["custody"] == "brokered" else client.action(**request)
if isinstance(out, Allowed):
    print(f"allowed: intent {out.decision['intent_id']}")
elif isinstance(out, Deferred):
    print(f"deferred: waiting for approval {out.approval_id}; approve it (svc approvals approve {out.approval_id}), then resume with the same request")
elif isinstance(out, Refused):
    print(f"refused: {out.reason}" + (f" (remedy: {out.remedy})" if out.remedy else ""))
elif isinstance(out, OutcomeUnknown):
    found = client.reconcile(task, request["effect_key_step"])
    print(f"outcome unknown; the journal says: {found.outcome or 'nothing yet'}")
else:
    print(f"{out.kind}: {out.reason}")
