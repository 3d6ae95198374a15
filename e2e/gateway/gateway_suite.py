"""The gateway suite's independent client: every request is signed with the
off-the-shelf RFC 9421 implementation (requests-http-signature on
http-message-signatures), never with STE's code. e2e/gateway_test.go starts
the broker, the processors and the gateways, then runs one phase of this
script at a time:

    python gateway_suite.py PHASE   (settings in the environment, see env())

Each phase checks what the contract says (an AssertionError fails it) and
prints one JSON object of facts for the Go side to hold to Kafka.
"""
import concurrent.futures
import datetime
import hashlib
import json
import os
import sys
import threading
import time

import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from requests_http_signature import HTTPSignatureAuth, algorithms


def env(name):
    return os.environ[name]


def demo_key(bic):
    # messages.md §2: the demo key of BIC is the seed sha256("ste-demo-key:" + BIC).
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(("ste-demo-key:" + bic).encode()).digest())


def auth(bic, key=None, **kw):
    kw.setdefault("use_nonce", True)
    return HTTPSignatureAuth(signature_algorithm=algorithms.ED25519, key=key or demo_key(bic), key_id=bic, **kw)


class Stale(HTTPSignatureAuth):
    def get_created(self, request):
        created = datetime.datetime.now() - datetime.timedelta(seconds=400)
        self.add_date(request, timestamp=int(created.timestamp()))
        return created


class NoNonce(HTTPSignatureAuth):
    def get_nonce(self, request):
        return None


S = requests.Session()


def get(url, a, **kw):
    return S.get(url, auth=a, timeout=40, **kw)


def post(url, a, body, ctype="text/plain"):
    return S.post(url, auth=a, data=body, headers={"Content-Type": ctype}, timeout=40)


def expect(r, status, body=None):
    assert r.status_code == status, f"{r.request.method} {r.request.url}: {r.status_code} {r.text!r}, want {status} {body}"
    if body is not None:
        assert r.json() == body, f"{r.request.url}: {r.text!r}, want {body}"
    return r


def refused(r, reason):
    return expect(r, 401, {"error": "unauthenticated", "reason": reason})


def sender_of(line):
    i = line.index("<Sender>") + len("<Sender>")
    return line[i:line.index("</Sender>", i)].strip()


def msg_id_of(line):
    i = line.index("<MsgId>") + len("<MsgId>")
    return line[i:line.index("</MsgId>", i)].strip()


def prepared(method, url, a, body=None, ctype=None):
    req = requests.Request(method, url, data=body, headers={"Content-Type": ctype} if ctype else {})
    p = S.prepare_request(req)
    a(p)
    return p


def phase_auth():
    """Every refusal reason of gateway.md §1, in its order, and what passes."""
    gw, bic, other = env("GW1"), env("BIC"), env("OTHER_BIC")
    out = gw + "/v1/outputs"
    expect(S.get(gw + "/v1/health"), 200, {"status": "ok"})
    keys = expect(S.get(gw + "/v1/keys"), 200).json()
    assert keys["utility"] == env("UTILITY_BIC") and len(keys["keys"]) >= 1, keys
    # Routing before authentication: 404 and 405 for anyone.
    expect(S.get(gw + "/v1/nothing"), 404, {"error": "not_found"})
    expect(S.delete(gw + "/v1/messages"), 405, {"error": "method_not_allowed"})
    expect(S.post(gw + "/v1/outputs"), 405, {"error": "method_not_allowed"})
    refused(S.get(out), "missing_signature")
    p = prepared("GET", out, auth(bic))
    del p.headers["Signature"]
    refused(S.send(p), "malformed")
    refused(get(out, NoNonce(signature_algorithm=algorithms.ED25519, key=demo_key(bic), key_id=bic)), "malformed")
    p = prepared("GET", out, auth(bic))
    p.headers["Signature-Input"] = p.headers["Signature-Input"] + ", " + p.headers["Signature-Input"].replace("pyhms=", "two=", 1)
    p.headers["Signature"] = p.headers["Signature"] + ", " + p.headers["Signature"].replace("pyhms=", "two=", 1)
    refused(S.send(p), "malformed")
    refused(get(out, auth(bic, covered_component_ids=("@authority", "@target-uri"))), "components")
    refused(get(out + "?limit=5", auth(bic, covered_component_ids=("@method", "@path"))), "components")
    refused(S.send(_sign_by_hand("POST", gw + "/v1/messages", b"x", ("@method", "@target-uri"))), "components")
    refused(get(out, auth("ZZZZSGSGXXX")), "unknown_participant")
    refused(get(out, auth(env("INACTIVE_BIC"))), "unknown_participant")
    refused(get(out, Stale(signature_algorithm=algorithms.ED25519, key=demo_key(bic), key_id=bic, use_nonce=True)), "stale")
    refused(get(out, auth(bic, expires_in=datetime.timedelta(seconds=-5))), "stale")
    refused(get(out, auth(bic, key=demo_key(other))), "bad_signature")
    # Signed for another @target-uri, and for another @authority.
    p = prepared("GET", out + "?limit=7", auth(bic))
    p.url = out + "?limit=8"
    refused(S.send(p), "bad_signature")
    p = prepared("GET", out, auth(bic))
    p.headers["Host"] = "gateway.example:443"
    refused(S.send(p), "bad_signature")
    # The body changed after signing; and a digest of no sha-256/sha-512.
    p = prepared("POST", gw + "/v1/messages", auth(bic), b"<Msg/>", "application/xml")
    p.body = b"<Msh/>"
    p.headers["Content-Length"] = str(len(p.body))
    refused(S.send(p), "digest_mismatch")
    # Replayed: the same signed request twice; the nonce is used up by the
    # first (even a refused one: its signature and digest had verified).
    p = prepared("GET", out + "?limit=1", auth(bic))
    expect(S.send(p), 200)
    refused(S.send(p), "replayed")
    p = prepared("POST", gw + "/v1/messages", auth(bic), b"", "text/plain")
    expect(S.send(p), 400, {"error": "malformed", "line": 1})
    refused(S.send(p), "replayed")
    # A participant holding two keys signs with either.
    rot = env("ROT_BIC")
    expect(get(out, auth(rot)), 200)
    expect(get(out, auth(rot, key=Ed25519PrivateKey.from_private_bytes(bytes.fromhex(env("ROT_SEED"))))), 200)
    # Label other than the library's default; alg left out; @path with @query.
    expect(get(out, auth(bic, label="sig1", include_alg=False)), 200)
    expect(get(out + "?limit=2", auth(bic, covered_component_ids=("@method", "@path", "@query"))), 200)
    # Body checks come after authentication: 415, 400, 403, 413.
    expect(post(gw + "/v1/messages", auth(bic), "<Msg/>", "application/json"), 415, {"error": "unsupported_media_type"})
    expect(post(gw + "/v1/messages", auth(bic), "\n  \n<Msg><Header><Sender>" + bic + "</Sender></Header>", "text/plain"),
           400, {"error": "malformed", "line": 3})
    expect(post(gw + "/v1/messages", auth(bic), "<Msg><Header><Sender>X</Sender><Sender>Y</Sender></Header><Body/></Msg>", "application/xml"),
           400, {"error": "malformed", "line": 1})
    expect(post(gw + "/v1/messages", auth(bic), "<Msg><Header><Sender>" + other + "</Sender></Header><Body/></Msg>", "application/xml; charset=utf-8"),
           403, {"error": "sender_mismatch", "line": 1})
    expect(post(gw + "/v1/messages", auth(bic), "\n".join(["<Msg/>"] * 1001), "text/plain"), 413, {"error": "too_large"})
    expect(post(gw + "/v1/messages", auth(bic), "<Msg>" + "x" * 65537 + "</Msg>", "application/xml"), 413, {"error": "too_large"})
    # Query checks of /v1/outputs.
    for q in ("limit=0", "limit=1001", "limit=x", "wait=31", "wait=-1"):
        expect(get(out + "?" + q, auth(bic)), 400, {"error": "bad_request"})
    expect(get(out + "?after=%%%", auth(bic)), 400, {"error": "bad_cursor", "reason": "invalid"})
    expect(get(out + "?after=AAAA", auth(bic)), 400, {"error": "bad_cursor", "reason": "invalid"})
    # Trades: one 404 for malformed, unknown.
    nf = {"error": "not_found"}
    expect(get(gw + "/v1/trades/XYZ", auth(bic)), 404, nf)
    expect(get(gw + "/v1/trades/0123456789abcdef", auth(bic)), 404, nf)
    return {}


def _sign_by_hand(method, url, body, components):
    """A signature made with http-message-signatures directly, covering only
    the components given (the requests plugin always adds content-digest)."""
    from http_message_signatures import HTTPMessageSigner
    from http_message_signatures.resolvers import MappingKeyResolver
    bic = env("BIC")
    req = S.prepare_request(requests.Request(method, url, data=body, headers={"Content-Type": "text/plain"}))
    signer = HTTPMessageSigner(signature_algorithm=algorithms.ED25519,
                               key_resolver=MappingKeyResolver(private_keys={bic: demo_key(bic)}, public_keys={}))
    signer.sign(req, key_id=bic, covered_component_ids=components, nonce=os.urandom(8).hex(), label="pyhms")
    return req


def submit_lines(gw, lines):
    """Each sender submits its own messages, in file order, in batches."""
    by = {}
    for ln in lines:
        by.setdefault(sender_of(ln), []).append(ln)
    accepted = 0

    def one(sender):
        n = 0
        msgs = by[sender]
        for i in range(0, len(msgs), 400):
            batch = msgs[i:i + 400]
            r = expect(post(gw, auth(sender), "\n".join(batch) + "\n"), 202)
            acc = r.json()["accepted"]
            assert len(acc) == len(batch) and all(isinstance(a["partition"], int) and a["offset"] >= 0 for a in acc), r.text
            n += len(acc)
        return n

    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        for n in ex.map(one, sorted(by)):
            accepted += n
    return accepted


def phase_submit():
    """The whole set through the gateways (alternating), and a batch with
    one foreign Sender, which publishes nothing."""
    lines = [l.rstrip("\n") for l in open(env("SET")) if l.strip()]
    half = len(lines) // 2
    n = submit_lines(env("GW1") + "/v1/messages", lines[:half]) + submit_lines(env("GW2") + "/v1/messages", lines[half:])
    assert n == len(lines), (n, len(lines))
    bic, other = env("BIC"), env("OTHER_BIC")
    mine = [l for l in lines if sender_of(l) == bic][:2]
    theirs = [l for l in lines if sender_of(l) == other][:1]
    assert mine and theirs
    foreign = [m.replace(msg_id_of(m), msg_id_of(m) + "-F") for m in mine] + theirs
    r = expect(post(env("GW1") + "/v1/messages", auth(bic), "\n".join(foreign)), 403, {"error": "sender_mismatch", "line": 3})
    return {"submitted": n, "foreign_msg_ids": [msg_id_of(m) for m in foreign[:2]]}


OUTPUT_TYPES = ("ACK", "NACK", "STATUS", "CNF", "BLK", "ALG")


def check_trade_output(o):
    """gateway.md v2 §3: a CNF, BLK or ALG entry has its function and trade
    key, as its XML says; the others have neither."""
    if o["msg_type"] in ("CNF", "BLK", "ALG"):
        assert o["function"] in ("NEW", "CANCEL"), o
        assert "<Function>" + o["function"] + "</Function>" in o["xml"], o
        assert len(o["trade_key"]) == 16 and "<TradeKey>" + o["trade_key"] + "</TradeKey>" in o["xml"], o
    else:
        assert "function" not in o and "trade_key" not in o, o


def walk(gw, bic, limit=1000, after=None):
    outs = []
    while True:
        q = "?limit=%d" % limit + ("&after=" + after if after else "")
        r = expect(get(gw + "/v1/outputs" + q, auth(bic)), 200)
        j = r.json()
        assert j["next"], j
        if not j["outputs"]:
            assert after is None or j["next"] == after, j
            return outs, j["next"]
        for o in j["outputs"]:
            assert o["cursor"] and o["msg_type"] in OUTPUT_TYPES, o
            assert "<Receiver>" + bic + "</Receiver>" in o["xml"], (bic, o["xml"][:200])
            check_trade_output(o)
        outs += j["outputs"]
        after = j["next"]


def phase_collect():
    """Every participant's outputs, walked through both gateways by cursor;
    written for the Go side to compare with ste match."""
    bics = [b for b in open(env("BICS")).read().split() if b]
    total = 0
    with open(env("OUT"), "w") as f, concurrent.futures.ThreadPoolExecutor(4) as ex:
        gws = [env("GW1"), env("GW2")]
        for outs, _ in ex.map(lambda ib: walk(gws[ib[0] % 2], ib[1], limit=1 + ib[0] % 300), enumerate(bics)):
            for o in outs:
                f.write(o["xml"] + "\n")
            total += len(outs)
    return {"outputs": total}


def phase_isolation():
    """Another participant's outputs and trades yield nothing."""
    gw, bic, other = env("GW1"), env("BIC"), env("OTHER_BIC")
    mine, _ = walk(gw, bic)
    theirs, their_next = walk(gw, other)
    assert mine and theirs
    # Their cursor used by us: only our own outputs from there.
    r = expect(get(gw + "/v1/outputs?after=" + theirs[0]["cursor"], auth(bic)), 200).json()
    assert all("<Receiver>" + bic + "</Receiver>" in o["xml"] for o in r["outputs"]), r
    their_ids = {o["msg_id"] for o in theirs}
    assert not their_ids & {o["msg_id"] for o in r["outputs"]}
    # Their trade: the same 404 as a key nobody holds.
    key, ref = env("THEIR_TRADE_KEY"), env("THEIR_TRADE_REF")
    a = get(gw + "/v1/trades/" + key, auth(bic))
    b = get(gw + "/v1/trades/0123456789abcdef", auth(bic))
    expect(a, 404, {"error": "not_found"})
    assert a.text == b.text and {k: v for k, v in a.headers.items() if k != "Date"} == {k: v for k, v in b.headers.items() if k != "Date"}
    expect(get(gw + "/v1/trades?trade_ref=" + ref, auth(bic)), 200, {"trades": []})
    # And their own view of it.
    t = expect(get(gw + "/v1/trades/" + key, auth(env("THEIR_PARTY"))), 200).json()
    assert t["trade_key"] == key and t["status"] in ("INCOMPLETE", "MATCHED", "MISMATCHED") and isinstance(t["missing"], list), t
    ts = expect(get(gw + "/v1/trades?trade_ref=" + ref, auth(env("THEIR_PARTY"))), 200).json()["trades"]
    assert key in [x["trade_key"] for x in ts], ts
    return {"mine": len(mine), "theirs": len(theirs)}


def phase_nonce():
    """Two instances shown one nonce at the same moment accept it once."""
    bic = env("BIC")
    wins = []
    for i in range(8):
        # Signed over @path and @query, so that one signature is valid at
        # both instances (as behind one load balancer and one public URL).
        p = prepared("GET", env("GW1") + "/v1/outputs?limit=1", auth(bic, covered_component_ids=("@method", "@path", "@query")))
        q = p.copy()
        q.url = env("GW2") + "/v1/outputs?limit=1"
        barrier = threading.Barrier(2)

        def send(x):
            barrier.wait()
            return requests.Session().send(x, timeout=20)

        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            rs = list(ex.map(send, [p, q]))
        codes = sorted(r.status_code for r in rs)
        assert codes == [200, 401], [(r.status_code, r.text) for r in rs]
        refused([r for r in rs if r.status_code == 401][0], "replayed")
        wins.append([r.status_code for r in rs].index(200))
    return {"winners": wins}


def open_long_polls(metrics_addr):
    """The gateway's ste_gateway_long_polls gauge (its /metrics, unsigned)."""
    for line in requests.get("http://%s/metrics" % metrics_addr, timeout=10).text.splitlines():
        if line.startswith("ste_gateway_long_polls "):
            return float(line.split()[1])
    return 0


def phase_killwalk():
    """kill -9 of the gateway answering a long poll: the walk goes on at the
    other gateway with the last cursor and loses no output."""
    gw3, gw1, bic = env("GW3"), env("GW1"), env("BIC")
    before, nxt = walk(gw1, bic)
    for attempt in range(3):
        result = {}

        def long_poll():
            try:
                r = get(gw3 + "/v1/outputs?wait=30&after=" + nxt, auth(bic))
                result["answered"] = "%d %s" % (r.status_code, r.text[:300])
            except requests.RequestException:
                result["broken"] = True

        t = threading.Thread(target=long_poll)
        t.start()
        # Killed once GW3 holds the poll open (its long-poll gauge, not a
        # fixed sleep: on a loaded machine the request may arrive late).
        deadline = time.time() + 30
        while time.time() < deadline and not result and not open_long_polls(env("GW3_METRICS")):
            time.sleep(0.05)
        if not result:
            break
        # An output of BIC came first and answered the poll: walk on, again.
        t.join()
        assert "answered" in result and result["answered"].startswith("200 "), result
        more, nxt = walk(gw1, bic, after=nxt)
        before += more
    assert not result and open_long_polls(env("GW3_METRICS")), "GW3 never held the long poll open: %s" % result
    os.kill(int(env("GW3_PID")), 9)
    t.join(30)
    assert result.get("broken"), result
    # New outputs arrive meanwhile: the Go side sends more after this phase
    # printed its cursor; here the walk resumes from the cursor it had.
    print(json.dumps({"cursor": nxt, "before": len(before)}), flush=True)
    sys.stdin.readline()  # the Go side has sent more messages
    deadline = time.time() + 180  # the pipeline answers the resent messages; a loaded machine is slow
    got = []
    after = nxt
    want = set(env("MSGIDS").split(","))

    def answered():
        ids = {o["msg_id"] for o in got}
        return all(("ACK:%s:%s" % (bic, m)) in ids or any(i.startswith("NACK:%s:%s:" % (bic, m)) for i in ids) for m in want)

    while time.time() < deadline and not answered():
        r = expect(get(gw1 + "/v1/outputs?wait=5&after=" + after, auth(bic)), 200).json()
        got += r["outputs"]
        after = r["next"]
    ids = [o["msg_id"] for o in got]
    return {"after_kill": ids}


def phase_tls_limits():
    """TLS on a gateway with a certificate; 429 with Retry-After once a
    participant exceeds its rate, counting authenticated requests only."""
    gw, bic, ca = env("GW4"), env("BIC"), env("CA")
    s = requests.Session()
    s.trust_env = False  # the suite's CA, whatever REQUESTS_CA_BUNDLE says
    s.verify = ca
    assert gw.startswith("https://"), gw
    expect(s.get(gw + "/v1/health"), 200, {"status": "ok"})
    out = gw + "/v1/outputs?limit=1"
    # Requests naming BIC without its key use none of its allowance.
    for _ in range(5):
        refused(s.get(out, auth=auth(bic, key=demo_key(env("OTHER_BIC")))), "bad_signature")
    for _ in range(3):  # the burst
        expect(s.get(out, auth=auth(bic)), 200)
    r = expect(s.get(out, auth=auth(bic)), 429, {"error": "rate_limited"})
    assert int(r.headers["Retry-After"]) >= 1, r.headers
    # Another participant has its own allowance.
    expect(s.get(out, auth=auth(env("OTHER_BIC"))), 200)
    return {}


def phase_public_url():
    """Behind a TLS-terminating proxy: @target-uri and @authority are the
    public URL's (--public-url), never the Host the gateway saw."""
    gw, bic, pub = env("GW5"), env("BIC"), env("GW5_PUBLIC")
    p = prepared("GET", pub + "/v1/outputs?limit=1", auth(bic))
    p.url = gw + "/v1/outputs?limit=1"
    expect(S.send(p), 200)
    refused(get(gw + "/v1/outputs?limit=1", auth(bic)), "bad_signature")
    # X-Forwarded-* is never trusted.
    p = prepared("GET", gw + "/v1/outputs", auth(bic))
    p.headers["X-Forwarded-Host"] = pub.split("://")[1]
    refused(S.send(p), "bad_signature")
    return {}


def phase_suspended():
    """Reference data changes take effect without a restart (within 30 s)."""
    gw, rot = env("GW1"), env("ROT_BIC")
    deadline = time.time() + 30
    while time.time() < deadline:
        r = get(gw + "/v1/outputs?limit=1", auth(rot))
        if r.status_code == 401:
            refused(r, "unknown_participant")
            return {"seconds": 30 - (deadline - time.time())}
        expect(r, 200)
        time.sleep(0.5)
    raise AssertionError("a SUSPENDED participant still authenticated after 30 s")


def phase_cursor():
    outs, _ = walk(env("GW1"), env("BIC"))
    return {"cursor": outs[0]["cursor"]}


def phase_expired():
    """A cursor whose records retention deleted: bad_cursor expired; the
    walk starts again without after."""
    gw, bic = env("GW2"), env("BIC")
    expect(get(gw + "/v1/outputs?after=" + env("CURSOR"), auth(bic)), 400, {"error": "bad_cursor", "reason": "expired"})
    j = expect(get(gw + "/v1/outputs", auth(bic)), 200).json()
    assert j["next"] and j["next"] != env("CURSOR"), j
    return {"outputs": len(j["outputs"])}


PHASES = {"cursor": phase_cursor, "expired": phase_expired, "tls_limits": phase_tls_limits, "public_url": phase_public_url, "suspended": phase_suspended, "auth": phase_auth, "submit": phase_submit, "collect": phase_collect, "isolation": phase_isolation,
          "nonce": phase_nonce, "killwalk": phase_killwalk}

if __name__ == "__main__":
    print(json.dumps(PHASES[sys.argv[1]]()), flush=True)
