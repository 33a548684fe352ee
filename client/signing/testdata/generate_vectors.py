#!/usr/bin/env python3
"""Generate the published request-signing test vectors (vectors.json).

This script is deliberately independent of the Go implementation in
signing/signing.go: it builds every string to sign and signature from the
product contract using only Python's standard hmac and hashlib modules, so
the Go tests that load vectors.json check the Go code against a second,
separately written implementation.

To rerun it (the output is deterministic: fixed secrets and timestamps):

    cd signing/testdata && python3 generate_vectors.py > vectors.json

or, from the module root:

    python3 signing/testdata/generate_vectors.py > signing/testdata/vectors.json

The rules, from the product contract:

  Scheme A: timestamp + METHOD + path + body, with no separators. path is
            the request path without host or query, either in full as sent
            (/api/v1/open/campaigns/cmp_x) or relative to the API prefix
            (/campaigns/cmp_x). The prefixes are /api/v1/open (canonical)
            and /v1.
  Scheme B: METHOD "\\n" PATH "\\n" TIMESTAMP "\\n" hex(md5(body)), four lines
            and no trailing newline; PATH is the full request path.

  signature = lower-case hex HMAC-SHA256(secret, string to sign), keyed with
  the whole secret string ("sk_test_..."). The query string is never signed;
  the path is signed exactly as sent, percent escapes included; the body is
  its exact bytes (UTF-8 here), empty for GET and DELETE.
"""

import hashlib
import hmac
import json
import sys

PREFIXES = ("/api/v1/open", "/v1")

# Two sandbox credentials, shaped like the ones the service issues:
# "ak_test_" + 24 base32 characters, "sk_test_" + 43 base64url characters.
KEY1 = ("ak_test_q4vz3mhk7tpa2wxe6ndb5rjc", "sk_test_Xq3vN8pL2mK7rT9wY4zB6cD1fG5hJ0sA8eU2iO7kQ3n")
KEY2 = ("ak_test_m2hd6wq9xkb4tz7rfp3cyn8e", "sk_test_0aZ9-bY8_cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO8mN7o")

CMP1 = "cmp_01k3m8qz7v4r2xw9ty5hbn6cde"
CMP2 = "cmp_01k3m9a0c2e4g6j8m0p2r4t6vw"

CREATE_BODY = (
    '{"name":"Spring Sale 2026","budget_daily":150.00,"marketplace":"US",'
    '"start_date":"2026-03-01","end_date":"2026-03-31","status":"active"}'
)
UPDATE_BODY = '{"budget_daily":200.50,"status":"paused","version":3}'
CAFE_BODY = '{"name":"Café ☕","budget_daily":12.34,"marketplace":"FR"}'
PRETTY_BODY = (
    '{\n  "name": "Back to School",\n  "budget_daily": 75,\n'
    '  "marketplace": "DE"\n}\n'
)


def relative_path(path):
    """Strip the API prefix: /api/v1/open/x -> /x, /v1/x -> /x."""
    for p in PREFIXES:
        if path.startswith(p + "/"):
            return path[len(p):]
    raise ValueError("path %r has no API prefix" % path)


def string_to_sign(scheme, path_form, method, path, timestamp, body):
    body_bytes = body.encode("utf-8")
    if scheme == "a":
        signed_path = path if path_form == "full" else relative_path(path)
        return timestamp.encode("ascii") + method.encode("ascii") + signed_path.encode("ascii") + body_bytes
    if scheme == "b":
        if path_form != "full":
            raise ValueError("scheme b always signs the full path")
        digest = hashlib.md5(body_bytes).hexdigest()
        return "\n".join([method, path, timestamp, digest]).encode("ascii")
    raise ValueError("unknown scheme %r" % scheme)


def vector(name, scheme, path_form, key, method, path, query, timestamp, body):
    api_key, secret = key
    sts = string_to_sign(scheme, path_form, method, path, timestamp, body)
    sig = hmac.new(secret.encode("utf-8"), sts, hashlib.sha256).hexdigest()
    return {
        "name": name,
        "scheme": scheme,
        "path_form": path_form,
        "api_key": api_key,
        "secret": secret,
        "request": {
            "method": method,
            "path": path,
            "query": query,
            "timestamp": timestamp,
            "content_type": "application/json" if body else "",
            "body": body,
        },
        "string_to_sign": sts.decode("utf-8"),
        "signature": sig,
    }


VECTORS = [
    # Scheme A, full path.
    vector("a_full_get_list_with_query", "a", "full", KEY1,
           "GET", "/api/v1/open/campaigns", "page=2&page_size=20&status=active", "1795000000", ""),
    vector("a_full_post_create_campaign", "a", "full", KEY1,
           "POST", "/api/v1/open/campaigns", "", "1795000060", CREATE_BODY),
    vector("a_full_put_update_campaign", "a", "full", KEY2,
           "PUT", "/api/v1/open/campaigns/" + CMP1, "", "1795000120", UPDATE_BODY),
    vector("a_full_delete_campaign_short_prefix", "a", "full", KEY2,
           "DELETE", "/v1/campaigns/" + CMP2, "", "1795000180", ""),
    vector("a_full_post_non_ascii_body", "a", "full", KEY1,
           "POST", "/api/v1/open/campaigns", "", "1795000240", CAFE_BODY),
    vector("a_full_get_percent_escaped_path", "a", "full", KEY2,
           "GET", "/api/v1/open/campaigns/spring%2F2026%20caf%C3%A9", "", "1795000300", ""),
    vector("a_full_post_multiline_body_short_prefix", "a", "full", KEY1,
           "POST", "/v1/campaigns", "", "1795000360", PRETTY_BODY),
    # Scheme A, path relative to the API prefix.
    vector("a_relative_get_list_with_query", "a", "relative", KEY1,
           "GET", "/api/v1/open/campaigns", "page=2&page_size=20&status=active", "1795000000", ""),
    vector("a_relative_post_create_campaign", "a", "relative", KEY1,
           "POST", "/api/v1/open/campaigns", "", "1795000060", CREATE_BODY),
    vector("a_relative_put_update_campaign_short_prefix", "a", "relative", KEY2,
           "PUT", "/v1/campaigns/" + CMP1, "", "1795000420", UPDATE_BODY),
    vector("a_relative_delete_campaign", "a", "relative", KEY2,
           "DELETE", "/api/v1/open/campaigns/" + CMP2, "", "1795000480", ""),
    # Scheme B (always the full path).
    vector("b_get_campaign_with_query", "b", "full", KEY1,
           "GET", "/api/v1/open/campaigns/" + CMP1, "fields=name%2Cstatus", "1795000540", ""),
    vector("b_post_create_campaign", "b", "full", KEY2,
           "POST", "/api/v1/open/campaigns", "", "1795000600", CREATE_BODY),
    vector("b_put_update_non_ascii_body_short_prefix", "b", "full", KEY1,
           "PUT", "/v1/campaigns/" + CMP1, "", "1795000660", CAFE_BODY),
    vector("b_delete_campaign", "b", "full", KEY2,
           "DELETE", "/api/v1/open/campaigns/" + CMP2, "", "1795000720", ""),
    vector("b_get_percent_escaped_path_short_prefix", "b", "full", KEY2,
           "GET", "/v1/campaigns/caf%C3%A9%20%E2%98%95", "page=1", "1795000780", ""),
]


def main():
    names = [v["name"] for v in VECTORS]
    assert len(names) == len(set(names)), "duplicate vector names"
    doc = {
        "description": (
            "Request-signing test vectors for the Campaign Advertising Open API. "
            "signature = lower-case hex HMAC-SHA256(secret, string_to_sign), keyed with the "
            "whole secret string. Scheme A: timestamp + METHOD + path + body with no "
            "separators, where path is the request path as sent (path_form \"full\") or "
            "relative to the API prefix /api/v1/open or /v1 (path_form \"relative\"). "
            "Scheme B: METHOD \\n PATH \\n TIMESTAMP \\n hex(md5(body)), full path, no trailing "
            "newline. The query is never signed; the path is signed exactly as sent, "
            "escapes included; the body is its exact UTF-8 bytes, empty when there is none. "
            "Generated by generate_vectors.py."
        ),
        "vectors": VECTORS,
    }
    out = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    sys.stdout.buffer.write(out.encode("utf-8"))


if __name__ == "__main__":
    main()
