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


# ---- The work queue (gateway.md v2 §4c) and the version 2 trade view ----

def signed_get(gw, path, bic):
    """A signed GET, waiting out a 429 as its Retry-After says."""
    for _ in range(20):
        r = get(gw + path, auth(bic))
        if r.status_code != 429:
            return r
        time.sleep(int(r.headers.get("Retry-After", "1")))
    raise AssertionError("rate limited for good: " + path)


def field(line, name):
    i = line.find("<" + name + ">")
    if i < 0:
        return None
    i += len(name) + 2
    return line[i:line.index("</" + name + ">", i)].strip()


def trade_key(line):
    """messages.md §5: FNV-1a 64 of the six key fields joined by |."""
    h = 0xcbf29ce484222325
    for b in "|".join(field(line, f) for f in ("TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr")).encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def set_keys(path):
    lines = [l.rstrip("\n") for l in open(path) if l.strip()]
    return lines, sorted({trade_key(l) for l in lines if field(l, "TradeRef")})


def queue_walk(gws, bic, query="", limit=7):
    """The whole queue a page at a time (alternating gateways): its trades,
    and the checks of every page's cursor."""
    out, after, i = [], None, 0
    while True:
        q = "limit=%d" % limit + query + ("&after=" + after if after else "")
        j = expect(signed_get(gws[i % len(gws)], "/v1/trades?" + q, bic), 200).json()
        i += 1
        assert set(j) == {"trades", "next"} and j["next"], j
        if not j["trades"]:
            assert after is None or j["next"] == after, (after, j)
            return out
        assert len(j["trades"]) <= limit, j
        out += j["trades"]
        after = j["next"]


QUEUE_FIELDS = {"trade_key", "trade_ref", "trade_date", "isin", "side", "broker", "inv_mgr", "status", "lifecycle",
                "cls_version", "failing_criteria", "owes", "missing_count", "market", "cutoff", "at_risk", "past_cutoff"}
VIEW_FIELDS = {"trade_key", "trade_ref", "trade_date", "isin", "side", "broker", "inv_mgr", "status", "cls_version",
               "failing_criteria", "messages", "held", "missing", "lifecycle", "match_digest", "agreement", "pending",
               "proposal", "affirmations", "cancel_requests", "block_status", "market", "cutoff", "at_risk", "past_cutoff"}


def views_of(gws, bic, keys):
    """The trade views bic gets (200) of keys; the others are 404s, all
    alike."""
    out, nf = {}, None
    for i, k in enumerate(keys):
        r = signed_get(gws[i % len(gws)], "/v1/trades/" + k, bic)
        if r.status_code == 404:
            assert r.text.strip() == '{"error":"not_found"}', r.text
            nf = r.text if nf is None else nf
            assert r.text == nf
            continue
        v = expect(r, 200).json()
        principal = bic in (v["broker"], v["inv_mgr"])
        assert set(v) == (VIEW_FIELDS if principal else VIEW_FIELDS - {"held"}), (bic, sorted(v))
        out[k] = v
    return out


def owes_of(bic, v):
    """gateway.md §4c: the items of missing from bic, without from, when
    another sender has a message in force (a principal sees them all)."""
    if not any(m["sender"] != bic for m in v["messages"]):
        return []
    return [{k: x for k, x in o.items() if k != "from"} for o in v["missing"] if o["from"] == bic]


def check_queue(gws, bic, keys):
    """bic's queue is exactly the trades whose view it gets, by TradeDate
    then trade key, each entry as its view says; each filter keeps what it
    names; cursors hold; the forms out of the contract are 400."""
    views = views_of(gws, bic, keys)
    entries = queue_walk(gws, bic)
    got = [e["trade_key"] for e in entries]
    mine = [e for e in entries if e["trade_key"] in keys]
    want = sorted(views, key=lambda k: (views[k]["trade_date"], k))
    assert set(got) <= set(keys), (bic, "trades of no submitted message", set(got) - set(keys))
    assert [e["trade_key"] for e in mine] == want, (bic, got, want)
    order = [(e["trade_date"], e["trade_key"]) for e in entries]
    assert order == sorted(order), order
    for e in mine:
        assert set(e) == QUEUE_FIELDS, sorted(e)
        v = views[e["trade_key"]]
        for f in QUEUE_FIELDS - {"owes", "missing_count"}:
            assert e[f] == v[f], (bic, e["trade_key"], f, e[f], v[f])
        assert e["missing_count"] == len(v["missing"]), (bic, e, v["missing"])
        if bic in (v["broker"], v["inv_mgr"]):
            assert e["owes"] == owes_of(bic, v), (bic, e, v)
        else:
            assert all(dict(o, **{"from": bic}) in v["missing"] for o in e["owes"]), (bic, e, v)
    filters = {
        "&status=MISMATCHED,INCOMPLETE": lambda e: e["status"] in ("MISMATCHED", "INCOMPLETE"),
        "&status=MATCHED": lambda e: e["status"] == "MATCHED",
        "&lifecycle=NONE": lambda e: e["lifecycle"] == "NONE",
        "&lifecycle=AFFIRMED,CANCELLED,CHANGE_PENDING": lambda e: e["lifecycle"] in ("AFFIRMED", "CANCELLED", "CHANGE_PENDING"),
        "&owes=true": lambda e: len(e["owes"]) > 0,
        "&at_risk=true": lambda e: e["at_risk"],
        "&trade_date=" + entries[0]["trade_date"]: lambda e: e["trade_date"] == entries[0]["trade_date"],
        "&at_risk=true&status=MATCHED": lambda e: e["at_risk"] and e["status"] == "MATCHED",
    }
    kept = {}
    for q, keep in filters.items():
        fw = [e["trade_key"] for e in queue_walk(gws, bic, q, limit=3)]
        assert fw == [e["trade_key"] for e in entries if keep(e)], (bic, q, fw)
        kept[q] = len(fw)
    one = [e["trade_key"] for e in queue_walk(gws, bic, limit=1)]
    assert one == got, (bic, "one at a time", one, got)
    big = expect(signed_get(gws[0], "/v1/trades?limit=500", bic), 200).json()
    assert [e["trade_key"] for e in big["trades"]] == got[:500], bic
    # next: the start cursor when nothing was returned without after.
    start = expect(signed_get(gws[0], "/v1/trades?status=MATCHED&lifecycle=CANCELLED", bic), 200).json()
    assert start["trades"] == [] and start["next"], start
    again = expect(signed_get(gws[1], "/v1/trades?limit=5&after=" + start["next"], bic), 200).json()
    assert [e["trade_key"] for e in again["trades"]] == got[:5], (again, got[:5])
    return {"trades": len(got), "kept": kept}


def phase_queue():
    """The work queue for a broker, an investment manager and a custodian
    (QB, QI, QC) over the whole submitted set, checked against the trade
    views each gets; and the forms the contract refuses."""
    gws = [env("GW1"), env("GW2")]
    _, keys = set_keys(env("SET"))
    # The messages the set lacks for the filters: trades owing messages, an
    # affirmation (EXTRA); every one answered, the affirmation in force.
    extra, extra_keys = set_keys(env("EXTRA"))
    for i, l in enumerate(extra):
        expect(post(gws[i % 2] + "/v1/messages", auth(sender_of(l)), l, "application/xml"), 202)
    deadline = time.time() + 180
    for s_ in {sender_of(l) for l in extra}:
        wait_acks(gws, s_, {msg_id_of(l) for l in extra if sender_of(l) == s_}, deadline)
    aff = [l for l in extra if "<MsgType>AFF</MsgType>" in l][0]
    while expect(signed_get(gws[0], "/v1/trades/" + trade_key(aff), env("QI")), 200).json()["lifecycle"] != "AFFIRMED":
        assert time.time() < deadline, "the affirmation never took effect"
        time.sleep(0.5)
    keys = sorted(set(keys) | set(extra_keys))
    facts = {}
    for who in ("QB", "QI", "QC"):
        facts[who] = check_queue(gws, env(who), keys)
        assert facts[who]["trades"] > 0, (who, facts[who])
    assert facts["QB"]["kept"]["&owes=true"] > 0 and facts["QC"]["kept"]["&owes=true"] > 0, facts
    assert facts["QI"]["kept"]["&lifecycle=AFFIRMED,CANCELLED,CHANGE_PENDING"] > 0, facts
    bic = env("QB")
    bad = ["limit=0", "limit=501", "limit=x", "status=FOO", "status=", "status=MATCHED,", "status=matched", "lifecycle=LOCKED",
           "owes=yes", "at_risk=1", "trade_date=2026-13-01", "trade_date=x", "status=MATCHED&status=MISMATCHED",
           "trade_ref=X&status=MATCHED", "trade_ref=X&owes=true", "trade_ref=X&lifecycle=NONE", "trade_ref=X&at_risk=true",
           "trade_ref=X&after=AQ"]
    for q in bad:
        expect(signed_get(gws[0], "/v1/trades?" + q, bic), 400, {"error": "bad_request"})
    for c in ("%25%25", "AAAA", "Mg", "x" * 80):
        expect(signed_get(gws[0], "/v1/trades?after=" + c, bic), 400, {"error": "bad_cursor", "reason": "invalid"})
    return facts


def wait_acks(gws, bic, ids, deadline):
    """Walks bic's ACKs and NACKs until every MsgId of ids is answered."""
    seen, after = set(), None
    while time.time() < deadline:
        q = "types=ACK,NACK&wait=2&limit=1000" + ("&after=" + after if after else "")
        j = expect(signed_get(gws[0], "/v1/outputs?" + q, bic), 200).json()
        for o in j["outputs"]:
            assert o["msg_type"] in ("ACK", "NACK"), o
            seen.add(o["msg_id"].split(":")[2])
        after = j["next"]
        if ids <= seen:
            return
    raise AssertionError("%s: no answer to %s" % (bic, sorted(ids - seen)[:5]))


def phase_isolation3():
    """Three participants of a set submitted in a shuffled order (ISO_SET,
    one message at a time as its Sender, alternating gateways): the Broker,
    the InvMgr and a Custodian of its first trade each find no record of
    another party — no output keyed or addressed to another, a Custodian's
    outputs naming no other custodian, a queue of its own trades only (by
    the parties the messages give), a 404 for every other trade of the set,
    a Custodian's views of its own accounts only."""
    gws = [env("GW1"), env("GW2")]
    lines, keys = set_keys(env("ISO_SET"))
    for i, l in enumerate(lines):
        expect(post(gws[i % 2] + "/v1/messages", auth(sender_of(l)), l, "application/xml"), 202)
    first = lines[0]
    trades = {}
    for l in lines:
        t = trades.setdefault(trade_key(l), {"parties": {field(l, "Broker"), field(l, "InvMgr")}, "accounts": {},
                                             "principals": {field(l, "Broker"), field(l, "InvMgr")}})
        if "<MsgType>ALC</MsgType>" in l:
            t["parties"].add(field(l, "Custodian"))
            t["accounts"].setdefault(field(l, "Custodian"), set()).add(field(l, "Account"))
    k0 = trade_key(first)
    b, i = field(first, "Broker"), field(first, "InvMgr")
    c = sorted(trades[k0]["parties"] - {b, i})[0]
    custodians = set().union(*[t["parties"] for t in trades.values()]) - {field(l, "Broker") for l in lines} - {field(l, "InvMgr") for l in lines}
    deadline = time.time() + 180
    for p in (b, i, c):
        wait_acks(gws, p, {msg_id_of(l) for l in lines if sender_of(l) == p}, deadline)
    date = field(first, "TradeDate")
    facts = {}
    for p in (b, i, c):
        mine = sorted(k for k, t in trades.items() if p in t["parties"])
        # Every trade of p matched (a standard set), in its queue of that date.
        while True:
            q = queue_walk(gws, p, "&trade_date=" + date, limit=4)
            if [e["trade_key"] for e in q] == mine and all(e["status"] == "MATCHED" for e in q):
                break
            assert time.time() < deadline, (p, [(e["trade_key"], e["status"]) for e in q], mine)
            time.sleep(1)
        for k in keys:
            r = signed_get(gws[0], "/v1/trades/" + k, p)
            if k not in mine:
                expect(r, 404, {"error": "not_found"})
                continue
            v = expect(r, 200).json()
            if p == c and c not in (v["broker"], v["inv_mgr"]):  # a custodian here (it may be a principal elsewhere)
                assert "held" not in v, v
                own = trades[k]["accounts"][c]
                assert all(m["msg_type"] in ("ALC", "NPR", "SET") and m["account"] in own for m in v["messages"]), (own, v["messages"])
        outs, end = walk(gws[1], p)
        # types= (gateway.md v2 §3): a walk of some types is the walk of all
        # with the others left out, ending at the same cursor.
        for types in ("CNF,BLK,ALG", "ACK,NACK,STATUS", "STATUS,CNF"):
            typed, after = [], None
            while True:
                q = "limit=2&types=" + types + ("&after=" + after if after else "")
                j = expect(signed_get(gws[len(typed) % 2], "/v1/outputs?" + q, p), 200).json()
                if not j["outputs"]:
                    # next: the last record examined, returned or not — the
                    # end of the walk of every type.
                    assert j["next"] == end, (p, types, j, end)
                    break
                typed += j["outputs"]
                after = j["next"]
            want = [o["msg_id"] for o in outs if o["msg_type"] in types.split(",")]
            assert [o["msg_id"] for o in typed] == want, (p, types, [o["msg_id"] for o in typed], want)
        others = (custodians - {c}) if p == c else set()
        about = [o for o in outs if o["msg_type"] not in ("ACK", "NACK") and any(k in o["xml"] for k in keys)]
        assert about, (p, "no output about the set")
        if p == c:  # only the trades it is a custodian of (it may be a principal of others)
            as_custodian = [k for k, t in trades.items() if c in t["parties"] and c not in t["principals"]]
            about = [o for o in about if any(k in o["xml"] for k in as_custodian)]
        for o in about:
            for x in others:
                assert x not in o["xml"], (p, x, o["xml"][:400])
        facts[p] = {"queue": len(mine), "outputs": len(outs)}
    return {"participants": [b, i, c], "facts": facts}


def phase_rogue():
    """Issue 45, item 3: a custodian that is no party of a trade sends a SET
    naming itself (ROGUE_SET, its Sender ROGUE_BIC): ACKed and parked — it
    gets the 404 of no trade, the trade is not in its queue, the Broker's
    view holds it under held and the trade stays MATCHED."""
    gws = [env("GW1"), env("GW2")]
    line = open(env("ROGUE_SET")).read().strip()
    rogue, key, broker = sender_of(line), trade_key(line), field(line, "Broker")
    expect(post(gws[0] + "/v1/messages", auth(rogue), line, "application/xml"), 202)
    wait_acks(gws, rogue, {msg_id_of(line)}, time.time() + 120)
    deadline = time.time() + 60
    while True:
        v = expect(signed_get(gws[1], "/v1/trades/" + key, broker), 200).json()
        if any(h["msg_id"] == msg_id_of(line) for h in v["held"]):
            break
        assert time.time() < deadline, v["held"]
        time.sleep(0.5)
    assert v["status"] == "MATCHED" and {"sender": rogue, "msg_id": msg_id_of(line), "account": field(line, "Account"),
                                         "custodian": rogue} in v["held"], v
    a = signed_get(gws[0], "/v1/trades/" + key, rogue)
    z = signed_get(gws[0], "/v1/trades/0123456789abcdef", rogue)
    expect(a, 404, {"error": "not_found"})
    assert a.text == z.text and {k: x for k, x in a.headers.items() if k != "Date"} == {k: x for k, x in z.headers.items() if k != "Date"}
    assert key not in [e["trade_key"] for e in queue_walk(gws, rogue)], "the rogue's queue lists the trade"
    expect(signed_get(gws[0], "/v1/trades?trade_ref=" + field(line, "TradeRef"), rogue), 200, {"trades": []})
    return {"trade_key": key}


PHASES = {"cursor": phase_cursor, "expired": phase_expired, "tls_limits": phase_tls_limits, "public_url": phase_public_url, "suspended": phase_suspended, "auth": phase_auth, "submit": phase_submit, "collect": phase_collect, "isolation": phase_isolation,
          "nonce": phase_nonce, "killwalk": phase_killwalk, "queue": phase_queue, "isolation3": phase_isolation3,
          "rogue": phase_rogue}

if __name__ == "__main__":
    print(json.dumps(PHASES[sys.argv[1]]()), flush=True)
