package svc

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"
)

// exchange is what came back: an answer, or a transport failure classified by whether the
// request can have reached the daemon.
type exchange struct {
	status  int
	body    []byte
	json    bool
	notSent *Error // the request certainly never reached the daemon
	lost    string // it may have: timeout, reset, an answer cut short
}

type transport struct {
	endpoint string
	token    string
	timeout  time.Duration
	http     *http.Client
}

func newTransport(endpoint, token string, caPEM []byte, timeout time.Duration) (*transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if caPEM != nil {
		// The retained deployment certificate is the only trust anchor.
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, usage("SVC_CA_CERT", "expected a PEM certificate", "point SVC_CA_CERT at the deployment certificate (`svc init` prints it as ca_cert)")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &transport{endpoint: endpoint, token: token, timeout: timeout, http: &http.Client{Transport: tr, Timeout: timeout}}, nil
}

func (t *transport) send(ctx context.Context, method, path string, body any) exchange {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return exchange{notSent: &Error{Code: "usage", Reason: "the request body cannot be encoded as JSON: " + err.Error()}}
		}
		reader = bytes.NewReader(data)
	}
	// Whether any of the request was written decides if a failure can have reached the daemon.
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteHeaders: func() { wrote.Store(true) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), method, t.endpoint+path, reader)
	if err != nil {
		return exchange{notSent: usage("SVC_ENDPOINT", err.Error(), "set SVC_ENDPOINT to the daemon's base URL")}
	}
	req.Header.Set("Authorization", "Bearer "+t.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := t.http.Do(req)
	if err != nil {
		return t.failure(err, wrote.Load())
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return exchange{lost: "the answer was cut short: " + err.Error()}
	}
	isJSON := strings.Contains(res.Header.Get("Content-Type"), "application/json") && json.Valid(data)
	return exchange{status: res.StatusCode, body: data, json: isJSON}
}

func (t *transport) failure(err error, wrote bool) exchange {
	var netErr net.Error
	if !wrote {
		remedy := "start it with `svc daemon start`, or point SVC_ENDPOINT at where it listens"
		var unknownAuthority x509.UnknownAuthorityError
		var hostname x509.HostnameError
		var invalid x509.CertificateInvalidError
		if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) || strings.Contains(err.Error(), "certificate") {
			remedy = "trust the deployment certificate: set SVC_CA_CERT to the file `svc init` printed as ca_cert"
		}
		return exchange{notSent: &Error{Code: "unreachable", Reason: fmt.Sprintf("the daemon is not reachable at %s: %v", t.endpoint, err), Remedy: remedy}}
	}
	if errors.As(err, &netErr) && netErr.Timeout() {
		return exchange{lost: fmt.Sprintf("no answer within %s", t.timeout)}
	}
	return exchange{lost: "the connection failed after the request was sent: " + err.Error()}
}
