import http.client
import json
import socket
import ssl
from typing import Any, Optional, Tuple
from urllib.parse import urlsplit

from .errors import SvcError

# An exchange is ("answer", status, body, is_json), ("not_sent", SvcError) when the request
# certainly never reached the daemon, or ("lost", reason) when it may have.
Exchange = Tuple[Any, ...]


class Transport:
    def __init__(self, endpoint: str, token: str, ca_pem_file: Optional[str], timeout: float):
        self.endpoint = endpoint
        self.token = token
        self.timeout = timeout
        url = urlsplit(endpoint)
        self._https = url.scheme == "https"
        self._host = url.hostname or "127.0.0.1"
        self._port = url.port or (443 if self._https else 80)
        self._prefix = url.path.rstrip("/")
        self._context = None
        if self._https:
            # The retained deployment certificate is the only trust anchor when one is given.
            self._context = ssl.create_default_context(cafile=ca_pem_file) if ca_pem_file else ssl.create_default_context()

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=self.timeout, context=self._context)
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def send(self, method: str, path: str, body: Any = None) -> Exchange:
        conn = self._connection()
        try:
            try:
                conn.connect()
            except (OSError, ssl.SSLError) as err:
                tls = isinstance(err, ssl.SSLError) or "CERTIFICATE" in str(err).upper()
                remedy = (
                    "trust the deployment certificate: set SVC_CA_CERT to the file `svc init` printed as ca_cert"
                    if tls
                    else "start it with `svc daemon start`, or point SVC_ENDPOINT at where it listens"
                )
                return ("not_sent", SvcError("unreachable", f"the daemon is not reachable at {self.endpoint}: {err}", remedy))
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
            data = None
            if body is not None:
                data = json.dumps(body).encode("utf-8")
                headers["Content-Type"] = "application/json"
            try:
                conn.request(method, self._prefix + path, body=data, headers=headers)
                res = conn.getresponse()
                raw = res.read()
            except socket.timeout:
                return ("lost", f"no answer within {self.timeout} s")
            except (OSError, http.client.HTTPException) as err:
                return ("lost", f"the connection failed after the request was sent: {err!r}")
            if "application/json" not in (res.getheader("Content-Type") or ""):
                return ("answer", res.status, raw.decode("utf-8", "replace"), False)
            try:
                return ("answer", res.status, json.loads(raw.decode("utf-8")) if raw else {}, True)
            except ValueError:
                return ("answer", res.status, raw.decode("utf-8", "replace"), False)
        finally:
            conn.close()
