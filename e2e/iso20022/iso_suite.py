"""The ISO 20022 suite's independent custodian client: every request is
signed with the off-the-shelf RFC 9421 implementation (requests-http-signature
on http-message-signatures, the gateway suite's), never with STE's code.
e2e/iso20022_test.go starts the broker, `ste process` and two `ste iso20022`
instances, sends each trade's other messages by Kafka, then runs one phase
of this script at a time:

    python iso_suite.py PHASE   (settings in the environment, see env())

Each phase checks what adapters.md §5 says (an AssertionError fails it) and
prints one JSON object of facts on its last line for the Go side, which also
validates every document collected against the pinned XSDs (xmllint).
"""
import hashlib
import json
import os
import re
import sys
import time

import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from requests_http_signature import HTTPSignatureAuth, algorithms


def env(name):
    return os.environ[name]


def demo_key(bic):
    # messages.md §2: the demo key of BIC is the seed sha256("ste-demo-key:" + BIC).
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(("ste-demo-key:" + bic).encode()).digest())


def auth(bic, **kw):
    return HTTPSignatureAuth(signature_algorithm=algorithms.ED25519, key=demo_key(bic), key_id=bic, use_nonce=True, **kw)


class FixedNonce(HTTPSignatureAuth):
    nonce = None

    def get_nonce(self, request):
        return self.nonce


def fixed(bic, nonce):
    a = FixedNonce(signature_algorithm=algorithms.ED25519, key=demo_key(bic), key_id=bic, use_nonce=True)
    a.nonce = nonce
    return a


S = requests.Session()


def post(base, bic, body, ctype="application/xml", signed=True):
    return S.post(base + "/v1/iso20022/messages", auth=auth(bic) if signed else None, data=body,
                  headers={"Content-Type": ctype}, timeout=40)


def expect(r, status, body=None):
    assert r.status_code == status, f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:300]!r}, want {status} {body}"
    if body is not None:
        assert r.json() == body, f"{r.request.url}: {r.text!r}, want {body}"
    return r


def outputs(base, bic, after=None, wait=0):
    q = {"wait": str(wait), "limit": "1000"}
    if after:
        q["after"] = after
    r = expect(S.get(base + "/v1/iso20022/outputs", params=q, auth=auth(bic), timeout=60), 200)
    j = r.json()
    assert j["next"], j
    return j


def phase_examples():
    """The contract's example documents and the refusals a custodian meets."""
    gw1, gw2, cust = env("ISO1"), env("ISO2"), env("CUSTODIAN")
    ex = open(os.path.join(env("EXAMPLES"), "sese.023-in-SET-NEW.xml"), "rb").read()
    cx = open(os.path.join(env("EXAMPLES"), "sese.020-in-SET-CANCEL.xml"), "rb").read()
    expect(S.get(gw1 + "/v1/health"), 200, {"status": "ok"})
    # Routed, then authenticated, then the body.
    expect(S.get(gw1 + "/v1/iso20022/nothing"), 404, {"error": "not_found"})
    expect(S.get(gw1 + "/v1/iso20022/messages"), 405, {"error": "method_not_allowed"})
    r = expect(post(gw1, cust, ex, signed=False), 401)
    assert r.json() == {"error": "unauthenticated", "reason": "missing_signature"}, r.text
    expect(post(gw1, cust, ex, "text/xml"), 415, {"error": "unsupported_media_type"})
    expect(post(gw1, cust, ex[:-30]), 400, {"error": "malformed"})
    expect(post(gw1, cust, ex.replace(b"sese.023.001.11", b"sese.023.001.09")), 400, {"error": "unsupported_message"})
    expect(post(gw1, cust, ex + b" " * 65536), 413, {"error": "too_large"})
    # One nonce space (gateway.md §1, adapters.md §5.2): a nonce used at one
    # instance is replayed at the other, and at ste gateway.
    nonce = "iso-suite-" + hashlib.sha256(os.urandom(16)).hexdigest()[:16]
    expect(S.get(gw1 + "/v1/iso20022/outputs", auth=fixed(cust, nonce), timeout=40), 200)
    r = expect(S.get(gw2 + "/v1/iso20022/outputs", auth=fixed(cust, nonce), timeout=40), 401)
    assert r.json() == {"error": "unauthenticated", "reason": "replayed"}, r.text
    r = expect(S.get(env("GW") + "/v1/outputs", auth=fixed(cust, nonce), timeout=40), 401)
    assert r.json() == {"error": "unauthenticated", "reason": "replayed"}, r.text
    nonce2 = nonce + "-2"
    expect(S.get(env("GW") + "/v1/outputs?limit=1", auth=fixed(cust, nonce2), timeout=40), 200)
    r = expect(S.get(gw1 + "/v1/iso20022/outputs", auth=fixed(cust, nonce2), timeout=40), 401)
    assert r.json() == {"error": "unauthenticated", "reason": "replayed"}, r.text
    # A cancellation of a TxId never instructed: 422 sese.027 NRGN.
    r = expect(post(gw2, cust, cx.replace(b"CUST/2026/000123", b"CUST/2026/000999")), 422)
    assert r.headers["Content-Type"] == "application/xml", r.headers
    assert "<Cd>NRGN</Cd>" in r.text and "<AddtlRsnInf>unknown TxId</AddtlRsnInf>" in r.text, r.text
    docs = [r.text]
    # A profile rejection: 422 sese.024 with its Rsn.
    r = expect(post(gw1, cust, ex.replace(b"<Cd>TRAD</Cd>", b"<Cd>REPU</Cd>")), 422)
    assert "<Cd>SETR</Cd>" in r.text, r.text
    docs.append(r.text)
    # The worked example: 202 with its MsgId, once the brokers have it.
    r = expect(post(gw1, cust, ex), 202)
    j = r.json()
    assert j["msg_ids"] == ["S1:CUST_2F2026_2F000123"] and len(j["accepted"]) == 1, j
    print(json.dumps({"accepted": j["accepted"], "docs": docs}))


def phase_post():
    """The generated sese.023 of every trade's SETs, alternately at both
    instances; at KILL_AT the second instance is killed with -9 (KILL_PID),
    and a post it no longer answers is posted again, signed anew, at the
    first (an exact duplicate if the dead one had published it)."""
    bases = [env("ISO1"), env("ISO2")]
    kill_at, kill_pid = int(os.environ.get("KILL_AT", "-1")), int(os.environ.get("KILL_PID", "0"))
    n, again = 0, 0
    with open(env("DOCS")) as f:
        for i, line in enumerate(f):
            if i == kill_at and kill_pid:
                os.kill(kill_pid, 9)
            bic, path = line.split()
            body = open(path, "rb").read()
            try:
                r = post(bases[i % 2], bic, body)
            except requests.exceptions.ConnectionError:
                again += 1
                r = post(bases[0], bic, body)
            r = expect(r, 202)
            assert r.json()["msg_ids"][0].startswith("S1:"), r.text
            n += 1
    print(json.dumps({"posted": n, "posted_again": again}))


def phase_collect():
    """Every custodian reads its outputs back by cursor and long poll, walking
    from one instance to the other, until each TxId has its ACK and its
    MATCHED sese.024 (deduped on source_msg_id and tx_id)."""
    bases = [env("ISO1")]
    if os.environ.get("ISO2"):
        bases.append(env("ISO2"))
    want = json.load(open(env("EXPECT")))  # {bic: {txid: "ack" or "match"}}
    outdir = env("OUT")
    deadline = time.time() + float(env("DEADLINE_S"))
    seen, acked, matched, docs = set(), set(), set(), 0
    for bic, txids in sorted(want.items()):
        cursor, k = None, 0
        def done():
            return all(t in acked and (w == "ack" or t in matched) for t, w in txids.items())
        while not done() and time.time() < deadline:
            j = outputs(bases[k % len(bases)], bic, cursor, wait=5)
            k += 1
            cursor = j["next"]
            for o in j["outputs"]:
                key = (o["source_msg_id"], o["tx_id"], o["xml"])
                if key in seen:
                    continue
                seen.add(key)
                assert o["msg_def"] in ("sese.024.001.12", "sese.027.001.07", "sese.028.001.10", "sese.029.001.06"), o
                assert o["xml"].startswith('<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:' + o["msg_def"] + '">'), o["xml"][:120]
                with open(os.path.join(outdir, "%06d.xml" % docs), "w") as f:
                    f.write(o["xml"])
                docs += 1
                if o["msg_def"] != "sese.024.001.12":
                    continue
                m = re.search(r"<AcctOwnrTxId>([^<]*)</AcctOwnrTxId>", o["xml"])
                assert m and m.group(1) == o["tx_id"], o
                if "<AckdAccptd>" in o["xml"]:
                    acked.add(o["tx_id"])
                if "<MtchgSts><Mtchd/></MtchgSts>" in o["xml"]:
                    matched.add(o["tx_id"])
                assert "<Rjctd>" not in o["xml"], o["xml"]
    missing = sorted(t for ts in want.values() for t, w in ts.items() if t not in acked or (w == "match" and t not in matched))
    print(json.dumps({"docs": docs, "acked": len(acked), "matched": len(matched), "missing": missing[:20]}))


if __name__ == "__main__":
    globals()["phase_" + sys.argv[1]]()
