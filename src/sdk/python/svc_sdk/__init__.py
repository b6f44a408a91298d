"""Python SDK of the svc daemon (standard library only, Python 3.9+).

Configured from SVC_ENDPOINT, SVC_TOKEN and SVC_CA_CERT (or arguments). Decision methods
return typed outcomes and never retry on their own; other methods return the daemon's JSON
answer or raise SvcError. A daemon that cannot be reached raises; it is never an empty list.
"""

from .client import SDK_METHODS, SvcClient
from .errors import SvcError
from .webhooks import verify_webhook
from .outcomes import (
    Allowed,
    Conflict,
    DaemonFailure,
    Deferred,
    OutcomeUnknown,
    Reconciled,
    Refused,
)

__all__ = [
    "SDK_METHODS",
    "SvcClient",
    "SvcError",
    "Allowed",
    "Conflict",
    "DaemonFailure",
    "Deferred",
    "OutcomeUnknown",
    "Reconciled",
    "Refused",
    "verify_webhook",
]
__version__ = "0.1.0"
