from typing import Any, Optional

_KIND = {400: "invalid_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 409: "conflict", 413: "payload_too_large", 503: "unavailable"}


class SvcError(Exception):
    """The daemon's coded error (or the SDK's own): a stable code, a reason, and a remedy when one can be named."""

    def __init__(self, code: str, reason: str, remedy: Optional[str] = None, field: Optional[str] = None, status: Optional[int] = None):
        super().__init__(reason if remedy is None else f"{reason} (remedy: {remedy})")
        self.code = code
        self.reason = reason
        self.remedy = remedy
        self.field = field
        self.status = status

    @classmethod
    def from_answer(cls, status: int, body: Any) -> "SvcError":
        b = body if isinstance(body, dict) else {}
        reason = b.get("reason") if isinstance(b.get("reason"), str) else f"the daemon answered HTTP {status}"
        if isinstance(b.get("request_id"), str):
            reason += f" (daemon request id {b['request_id']})"
        code = b.get("code") if isinstance(b.get("code"), str) else _KIND.get(status, "invalid_request" if status < 500 else "unavailable")
        return cls(code, reason, b.get("remedy"), b.get("field"), status)
