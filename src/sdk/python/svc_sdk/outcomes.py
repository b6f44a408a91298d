from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

# Typed outcomes of the decision routes. Every one carries the route it was made on and the
# request exactly as sent: a resume or a documented retry sends that request again.


@dataclass
class Allowed:
    route: str
    request: Dict[str, Any]
    decision: Dict[str, Any]
    kind: str = "allowed"


@dataclass
class Deferred:
    """202: nothing authorized yet; resume with the same request after the condition changes."""

    route: str
    request: Dict[str, Any]
    decision: Dict[str, Any]
    approval_id: Optional[str]
    reason: Optional[str]
    kind: str = "deferred"


@dataclass
class Refused:
    """403: refused; `decision` holds the sealed receipt when the decision was sealed."""

    route: str
    request: Dict[str, Any]
    code: str
    reason: str
    remedy: Optional[str]
    decision: Optional[Dict[str, Any]]
    kind: str = "refused"


@dataclass
class Conflict:
    """409: the key is claimed or deferred, or a resume body differs. Never bypass it with a new key."""

    route: str
    request: Dict[str, Any]
    code: str
    reason: str
    remedy: Optional[str]
    intent_id: Optional[str]
    prior_outcome: Optional[str]
    kind: str = "conflict"


@dataclass
class DaemonFailure:
    """503 from the daemon: read `executed` and reconcile before repeating with the same request."""

    route: str
    request: Dict[str, Any]
    status: int
    code: str
    reason: str
    remedy: Optional[str]
    intent_id: Optional[str]
    executed: Optional[bool]
    request_id: Optional[str]
    kind: str = "failure"


@dataclass
class OutcomeUnknown:
    """Timeout, reset, an intermediary's error, no answer: reconcile by task and step before any retry."""

    route: str
    request: Dict[str, Any]
    reason: str
    task_id: str
    effect_key_step: str
    kind: str = "unknown"


@dataclass
class Reconciled:
    task_id: str
    effect_key_step: str
    found: bool
    decision: Optional[Dict[str, Any]]
    outcome: Optional[str]
    intent_id: Optional[str]
    execution: Optional[Dict[str, Any]]
    receipts: List[Dict[str, Any]] = field(default_factory=list)
    note: str = ""
