import os
from typing import Any, Dict, Iterator, Optional, Union
from urllib.parse import quote, urlencode, urlsplit

from .errors import SvcError
from .outcomes import Allowed, Conflict, DaemonFailure, Deferred, OutcomeUnknown, Reconciled, Refused
from .transport import Transport

DEFAULT_ENDPOINT = "http://127.0.0.1:8090"

# The daemon's operationIds, in this language's naming (a test checks the list).
SDK_METHODS = {
    "action": "action", "resume": "resume", "brokered": "brokered", "resumeBrokered": "resume_brokered",
    "federate": "federate", "observe": "observe", "presentGrant": "present_grant", "grantReceipt": "grant_receipt",
    "capabilities": "capabilities", "catalogue": "catalogue", "requestAccess": "request_access",
    "accessRequest": "access_request", "revokeAccessRequest": "revoke_access_request", "managerCards": "manager_cards",
    "decideManagerCard": "decide_manager_card", "approvals": "approvals", "approval": "approval",
    "decideApproval": "decide_approval", "entitlements": "entitlements", "tasks": "tasks", "task": "task",
    "executionConstraints": "execution_constraints", "receipts": "receipts", "receipt": "receipt", "health": "health",
}

Outcome = Union[Allowed, Deferred, Refused, Conflict, DaemonFailure, OutcomeUnknown]
_ROUTES = {"action": ("/v1/action", "/v1/action/resume"), "brokered": ("/v1/brokered", "/v1/brokered/resume"), "federate": ("/v1/federate", None)}


def _str(v: Any) -> Optional[str]:
    return v if isinstance(v, str) else None


def _id(value: str) -> str:
    if not isinstance(value, str) or value == "":
        raise SvcError("usage", "id: expected a non-empty string", field="id")
    return quote(value, safe="")


class SvcClient:
    """A client of the svc daemon for agents."""

    def __init__(self, endpoint: Optional[str] = None, token: Optional[str] = None, ca_cert: Optional[str] = None,
                 timeout: float = 30.0, env: Optional[Dict[str, str]] = None, identity: Optional[Dict[str, str]] = None):
        env = os.environ if env is None else env
        endpoint = endpoint or env.get("SVC_ENDPOINT") or DEFAULT_ENDPOINT
        url = urlsplit(endpoint)
        if url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment:
            raise SvcError("usage", f"SVC_ENDPOINT: expected the daemon's base URL, such as https://127.0.0.1:8090 (got {endpoint})",
                           "set SVC_ENDPOINT (or endpoint=) to where `svc daemon start` listens", "SVC_ENDPOINT")
        token = (token if token is not None else env.get("SVC_TOKEN", "")).strip()
        if not token:
            raise SvcError("usage", "SVC_TOKEN: not set: the daemon authenticates every agent request with a bearer token",
                           "export SVC_TOKEN=<token>; an operator issues one with `svc token issue --tenant <tenant> --actor <agent>`",
                           "SVC_TOKEN")
        if not all(0x21 <= ord(ch) <= 0x7E for ch in token):
            raise SvcError("usage", "SVC_TOKEN: expected the token exactly as issued (printable, no spaces)",
                           "copy it again from `svc token issue`", "SVC_TOKEN")
        ca_cert = ca_cert or env.get("SVC_CA_CERT") or None
        if ca_cert is not None and not os.path.isfile(ca_cert):
            raise SvcError("usage", f"SVC_CA_CERT: cannot read {ca_cert}",
                           "point SVC_CA_CERT at the deployment certificate (`svc init` prints it as ca_cert)", "SVC_CA_CERT")
        if timeout <= 0:
            raise SvcError("usage", f"timeout: expected a positive number of seconds (got {timeout})", field="timeout")
        self._t = Transport(endpoint.rstrip("/"), token, ca_cert, timeout)
        self._identity = dict(identity) if identity else None

    @property
    def endpoint(self) -> str:
        return self._t.endpoint

    # -- plumbing -----------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, query: Optional[Dict[str, Any]] = None) -> Any:
        if query:
            q = urlencode({k: v for k, v in query.items() if v is not None})
            if q:
                path = f"{path}?{q}"
        ex = self._t.send(method, path, body)
        if ex[0] == "not_sent":
            raise ex[1]
        if ex[0] == "lost":
            raise SvcError("outcome_unknown", f"{path}: {ex[1]}", "try again" if method == "GET" else "read the state back before repeating the request")
        _, status, payload, is_json = ex
        if 200 <= status < 300 and is_json:
            return payload
        if not is_json and status < 400:
            raise SvcError("invalid_response", f"{path}: HTTP {status} without the daemon's JSON body (an intermediary answered?)",
                           "check that SVC_ENDPOINT is the daemon itself", status=status)
        raise SvcError.from_answer(status, payload if is_json else {})

    def identity(self) -> Dict[str, str]:
        """The tenant and actor the token authenticates (asked once, from GET /v1/capabilities)."""
        if self._identity is None:
            caps = self.capabilities()
            self._identity = {"tenant_id": caps["tenant_id"], "actor_id": caps["actor_id"]}
        return dict(self._identity)

    def _decide(self, route: str, resume: bool, request: Dict[str, Any]) -> Outcome:
        who = self.identity()
        body = {k: v for k, v in request.items() if v is not None and k not in ("tenant_id", "actor_id")}
        body = {"tenant_id": who["tenant_id"], "actor_id": who["actor_id"], **body}
        ex = self._t.send("POST", _ROUTES[route][1 if resume else 0], body)
        return _outcome(route, body, ex)

    @staticmethod
    def _request(capability, action, task_id, effect_key_step, **optional) -> Dict[str, Any]:
        return {"capability": capability, "action": action, "task_id": task_id, "effect_key_step": effect_key_step, **optional}

    @staticmethod
    def _resumable(route: str, deferred: Optional[Deferred], request: Dict[str, Any]) -> Dict[str, Any]:
        if deferred is None:
            return request
        if deferred.route != route:
            hint = "resume_brokered" if deferred.route == "brokered" else "resume"
            raise SvcError("usage", f"this deferral was made on /v1/{deferred.route}; resume it there", f"call {hint}")
        return dict(deferred.request)

    # -- decisions ------------------------------------------------------------------------

    def action(self, capability: str, action: str, task_id: str, effect_key_step: str, **optional: Any) -> Outcome:
        """POST /v1/action: a recorded decision; a grant when allowed. Optional: amount_usd, intent, params, correlation_id, trace_id."""
        return self._decide("action", False, self._request(capability, action, task_id, effect_key_step, **optional))

    def resume(self, deferred: Optional[Deferred] = None, **request: Any) -> Outcome:
        """POST /v1/action/resume with the deferred request unchanged (pass the Deferred, or the same fields)."""
        return self._decide("action", True, self._resumable("action", deferred, request))

    def brokered(self, capability: str, action: str, task_id: str, effect_key_step: str, **optional: Any) -> Outcome:
        """POST /v1/brokered: decide and, when allowed, execute through the daemon's connector."""
        return self._decide("brokered", False, self._request(capability, action, task_id, effect_key_step, **optional))

    def resume_brokered(self, deferred: Optional[Deferred] = None, **request: Any) -> Outcome:
        """POST /v1/brokered/resume: executes only if the revalidated decision allows."""
        return self._decide("brokered", True, self._resumable("brokered", deferred, request))

    def federate(self, capability: str, action: str, task_id: str, effect_key_step: str, **optional: Any) -> Outcome:
        """POST /v1/federate: refused (`no federated backend`) in the supplied distribution."""
        return self._decide("federate", False, self._request(capability, action, task_id, effect_key_step, **optional))

    # -- effects and grants ------------------------------------------------------------------

    def observe(self, intent_id: str, status: str, effect_id: Optional[str] = None, detail: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        return self._call("POST", "/v1/observe", _drop_none(intent_id=intent_id, status=status, effect_id=effect_id, detail=detail))

    def present_grant(self, grant_id: str) -> Dict[str, Any]:
        return self._call("POST", "/v1/grants/present", {"grant_id": grant_id})

    def grant_receipt(self, grant_id: str, status: str, effect_id: Optional[str] = None, detail: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        return self._call("POST", "/v1/grants/receipt", _drop_none(grant_id=grant_id, status=status, effect_id=effect_id, detail=detail))

    # -- discovery and access ----------------------------------------------------------------

    def capabilities(self) -> Dict[str, Any]:
        return self._call("GET", "/v1/capabilities")

    def catalogue(self) -> Any:
        return self._call("GET", "/v1/catalogue")

    def request_access(self, capability: str, reason: str, duration_seconds: int) -> Dict[str, Any]:
        return self._call("POST", "/v1/access-requests", {"capability": capability, "reason": reason, "duration_seconds": duration_seconds})

    def access_request(self, id: str) -> Dict[str, Any]:
        return self._call("GET", f"/v1/access-requests/{_id(id)}")

    def revoke_access_request(self, id: str, note: Optional[str] = None) -> Dict[str, Any]:
        return self._call("POST", f"/v1/access-requests/{_id(id)}/revoke", _drop_none(note=note))

    def manager_cards(self, status: Optional[str] = None) -> Any:
        return self._call("GET", "/v1/manager-cards", query={"status": status})

    def decide_manager_card(self, card_id: str, decision: str, duration_seconds: Optional[int] = None, note: Optional[str] = None) -> Dict[str, Any]:
        return self._call("POST", "/v1/manager-cards/decide", _drop_none(card_id=card_id, decision=decision, duration_seconds=duration_seconds, note=note))

    def approvals(self, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None) -> Dict[str, Any]:
        return self._call("GET", "/v1/approvals", query={"limit": limit, "cursor": cursor, "status": status})

    def approval(self, id: str) -> Dict[str, Any]:
        """GET /v1/approvals/{id}: what it binds (request, params, provider_request, amount_usd and amount_source)."""
        return self._call("GET", f"/v1/approvals/{_id(id)}")

    def decide_approval(self, id: str, decision: str, note: Optional[str] = None) -> Dict[str, Any]:
        """For approvers (registered humans): approve or deny; the first decision wins."""
        return self._call("POST", f"/v1/approvals/{_id(id)}/decision", _drop_none(decision=decision, note=note))

    def entitlements(self, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None, actor_id: Optional[str] = None) -> Dict[str, Any]:
        return self._call("GET", "/v1/entitlements", query={"limit": limit, "cursor": cursor, "status": status, "actor_id": actor_id})

    # -- tasks, receipts, health -------------------------------------------------------------

    def tasks(self, limit: Optional[int] = None, cursor: Optional[str] = None, status: Optional[str] = None) -> Dict[str, Any]:
        return self._call("GET", "/v1/task", query={"limit": limit, "cursor": cursor, "status": status})

    def task(self, id: str) -> Dict[str, Any]:
        return self._call("GET", f"/v1/task/{_id(id)}")

    def execution_constraints(self, task_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/v1/task/{_id(task_id)}/execution-constraints")

    def receipts(self, task_id: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        """Every page of receipts in journal order, following next_cursor until the last."""
        cursor = None
        while True:
            page = self._call("GET", "/v1/receipts", query={"task_id": task_id, "limit": limit, "cursor": cursor})
            yield page
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    def receipt(self, id: str) -> Dict[str, Any]:
        return self._call("GET", f"/v1/receipts/{_id(id)}")

    def health(self) -> Dict[str, Any]:
        return self._call("GET", "/healthz")

    def reconcile(self, task_id: str, effect_key_step: str) -> Reconciled:
        """After an unknown outcome: this caller's decision (and execution) for the key, from the task's receipts."""
        me = self.identity()["actor_id"]
        mine = [r for page in self.receipts(task_id=task_id, limit=200) for r in page["items"]
                if r.get("actor_id") == me and r.get("effect_key_step") == effect_key_step]
        decisions = [r for r in mine if r.get("kind") == "decision"]
        decision = decisions[-1] if decisions else None
        executions = [r for r in mine if decision and r.get("kind") == "execution" and r.get("intent_id") == decision["intent_id"]]
        note = ("found in the journal; a claim is not proof of downstream success (see execution for a brokered call)" if decision else
                "no receipt of this caller names the key: a missing receipt does not prove nothing was committed; "
                "give the task id and step to the operator before sending a new request")
        return Reconciled(task_id, effect_key_step, decision is not None, decision, decision["outcome"] if decision else None,
                          decision["intent_id"] if decision else None, executions[-1] if executions else None, mine, note)


def _drop_none(**fields: Any) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _outcome(route: str, request: Dict[str, Any], ex: tuple) -> Outcome:
    """The answer of a decision route as a typed outcome; caller mistakes raise; anything unreadable is unknown."""
    def unknown(reason: str) -> OutcomeUnknown:
        return OutcomeUnknown(route, request, f"outcome unknown: {reason}; reconcile by task_id and effect_key_step before any retry",
                              request["task_id"], request["effect_key_step"])

    if ex[0] == "not_sent":
        raise ex[1]
    if ex[0] == "lost":
        return unknown(ex[1])
    _, status, b, is_json = ex
    if not is_json or not isinstance(b, dict):
        return unknown(f"HTTP {status} without the daemon's JSON body (an intermediary answered?)")
    shaped = isinstance(b.get("decision"), str) and isinstance(b.get("intent_id"), str)
    if status == 200 and b.get("decision") == "allowed":
        return Allowed(route, request, b)
    if status == 202 and b.get("decision") == "deferred":
        approval = b.get("approval") or {}
        return Deferred(route, request, b, _str(approval.get("approval_id")), _str(b.get("reason")))
    if status == 403 and isinstance(b.get("reason"), str):
        return Refused(route, request, _str(b.get("code")) or "refused", b["reason"], _str(b.get("remedy")), b if shaped else None)
    if status == 409 and isinstance(b.get("code"), str):
        return Conflict(route, request, b["code"], _str(b.get("reason")) or "", _str(b.get("remedy")), _str(b.get("intent_id")), _str(b.get("outcome")))
    if status >= 500 and isinstance(b.get("code"), str):
        executed = b.get("executed") if isinstance(b.get("executed"), bool) else None
        return DaemonFailure(route, request, status, b["code"], _str(b.get("reason")) or "", _str(b.get("remedy")),
                             _str(b.get("intent_id")), executed, _str(b.get("request_id")))
    if 400 <= status < 500:
        raise SvcError.from_answer(status, b)
    return unknown(f"HTTP {status} is not an answer a decision route gives")
