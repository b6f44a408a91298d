"""Verify a webhook the svc daemon sent (Standard Webhooks 1.0), with the standard library only."""

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, Mapping, Optional, Union

from .errors import SvcError

_TS = re.compile(r"^\d{1,15}$")


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    # dict, http.client.HTTPMessage, or a framework's case-insensitive mapping
    get = getattr(headers, "get", None)
    value = get(name) if get is not None else None
    if value is None:
        for k in headers.keys():
            if k.lower() == name:
                value = headers[k]
                break
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return value if isinstance(value, str) else None


def _key(secret: str) -> bytes:
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise SvcError("invalid_request", "secret: expected whsec_ followed by base64", field="secret")
    b64 = secret[len("whsec_") :]
    try:
        key = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if not key or base64.b64encode(key).decode("ascii") != b64:
        raise SvcError("invalid_request", "secret: expected whsec_ followed by base64", field="secret")
    return key


def verify_webhook(
    headers: Mapping[str, Any],
    body: Union[bytes, str],
    secret: str,
    *,
    now: Optional[float] = None,
    tolerance: int = 300,
) -> Dict[str, Any]:
    """Check the signature and timestamp of a webhook and return its event.

    `body` is the request body exactly as received; `secret` the destination's `whsec_...`
    secret. Returns `{"id", "type", "timestamp", "data"}` (deduplicate by `id`: delivery is
    at least once). Raises SvcError with code `missing_signature`, `bad_timestamp` (more than
    `tolerance` seconds from now: a replay), `bad_signature` or `bad_request`.
    """
    key = _key(secret)
    wid = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    sigs = _header(headers, "webhook-signature")
    if not wid or not ts or not sigs:
        raise SvcError("missing_signature", "expected the webhook-id, webhook-timestamp and webhook-signature headers", status=401)
    if not _TS.match(ts):
        raise SvcError("bad_timestamp", "webhook-timestamp: expected unix seconds", status=401)
    current = int(time.time() if now is None else now)
    if abs(current - int(ts)) > tolerance:
        raise SvcError("bad_timestamp", f"webhook-timestamp: expected within {tolerance} s of now", status=401)
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = hmac.new(key, f"{wid}.{ts}.".encode("utf-8") + raw, hashlib.sha256).digest()
    match = False
    # Any of the space-separated signatures may match (a rotation carries two).
    for sig in sigs.split(" "):
        version, _, mac = sig.partition(",")
        if version != "v1" or not mac:
            continue
        try:
            got = base64.b64decode(mac, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(got, expected):
            match = True
    if not match:
        raise SvcError("bad_signature", "webhook-signature: no v1 signature matches this secret", status=401)
    try:
        event = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        event = None
    if (
        not isinstance(event, dict)
        or not isinstance(event.get("type"), str)
        or not isinstance(event.get("timestamp"), str)
        or not isinstance(event.get("data"), dict)
    ):
        raise SvcError("bad_request", "body: expected {type, timestamp, data}", field="body")
    return {"id": wid, "type": event["type"], "timestamp": event["timestamp"], "data": event["data"]}
