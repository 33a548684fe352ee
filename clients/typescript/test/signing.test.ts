import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Signer, sign, stringToSign, type Scheme } from "../src/signing.js";
import { repoRoot } from "./repo.js";

interface Vector {
  name: string;
  scheme: Scheme;
  path_form: "full" | "relative";
  secret: string;
  request: { method: string; path: string; timestamp: string; body: string };
  string_to_sign: string;
  signature: string;
}

const vectors = (JSON.parse(readFileSync(join(repoRoot(), "client", "signing", "testdata", "vectors.json"), "utf8")) as { vectors: Vector[] }).vectors;

test("the repository's signing vectors, both schemes and both path forms", () => {
  assert.ok(vectors.length >= 10, `only ${vectors.length} vectors`);
  for (const v of vectors) {
    const path = v.path_form === "relative" ? v.request.path.replace(/^(\/api\/v1\/open|\/v1)(?=\/)/, "") : v.request.path;
    const msg = stringToSign(v.scheme, v.request.timestamp, v.request.method, path, Buffer.from(v.request.body, "utf8"));
    assert.equal(msg.toString("utf8"), v.string_to_sign, v.name);
    assert.equal(sign(v.secret, msg), v.signature, v.name);
  }
});

test("equal changes in one second get different timestamps; reads do not", () => {
  const s = new Signer("ak_test_x", "sk_test_y", "a", () => 1_795_000_000_500);
  const body = Buffer.from('{"name":"x"}');
  const first = s.headers("POST", "/api/v1/open/campaigns", body);
  const second = s.headers("POST", "/api/v1/open/campaigns", body);
  const other = s.headers("POST", "/api/v1/open/campaigns", Buffer.from('{"name":"y"}'));
  assert.equal(first["X-Timestamp"], "1795000000");
  assert.equal(second["X-Timestamp"], "1795000001");
  assert.equal(other["X-Timestamp"], "1795000000");
  assert.notEqual(first["X-Signature"], second["X-Signature"]);
  const get1 = s.headers("GET", "/api/v1/open/campaigns", new Uint8Array());
  const get2 = s.headers("GET", "/api/v1/open/campaigns", new Uint8Array());
  assert.equal(get1["X-Timestamp"], get2["X-Timestamp"]);
});

test("a signer needs a key and a secret", () => {
  assert.throws(() => new Signer("", "sk_test_y"));
});
