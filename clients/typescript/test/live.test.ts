// The whole API, against a live adcamp serve, through the package's client:
// openapi-fetch over the types openapi-typescript generated, the signing and
// money middlewares. Every answer is also validated, as the server sent it,
// against openapi.yaml with ajv in strict mode (scripts/openapi-ajv.mjs),
// unknown members refused: the generated types are only as true as that.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import type { Middleware } from "openapi-fetch";
import { createAdcampClient, fromCents, toCents, type AdcampClient, type components } from "../src/index.js";
import { repoRoot, startServer, type Server } from "./repo.js";

type Schemas = components["schemas"];

interface Validator {
  response(method: string, path: string, status: number, text: string): string[];
  request(method: string, path: string, text: string): string[];
}
interface AjvModule {
  loadDocument(file: string): unknown;
  createValidator(doc: unknown): Validator;
}

let server: Server;
let api: AdcampClient;
let apiB: AdcampClient;
const problems: string[] = [];
let checked = 0;

/** A middleware that validates each answer, as sent, against openapi.yaml. */
function validating(v: Validator): Middleware {
  const bodies = new Map<string, string>();
  return {
    async onRequest({ request, id }) {
      bodies.set(id, await request.clone().text());
      return undefined;
    },
    async onResponse({ request, response, schemaPath, id }) {
      const text = await response.clone().text();
      const where = `${request.method} ${schemaPath} ${response.status}`;
      for (const p of v.response(request.method, schemaPath, response.status, text)) problems.push(`${where}: ${p}\n${text.slice(0, 300)}`);
      const body = bodies.get(id) ?? "";
      bodies.delete(id);
      if (response.ok && response.status !== 207 && body && response.headers.get("Idempotent-Replayed") === null) {
        for (const p of v.request(request.method, schemaPath, body)) problems.push(`${where}: the server accepted an invalid body: ${p}`);
      }
      checked++;
      return undefined;
    },
  };
}

before(async () => {
  server = await startServer();
  const ajv = (await import(pathToFileURL(join(repoRoot(), "scripts", "openapi-ajv.mjs")).href)) as AjvModule;
  const v = ajv.createValidator(ajv.loadDocument(join(repoRoot(), "openapi.yaml")));
  api = createAdcampClient({ baseUrl: server.sandbox, apiKey: server.apiKey, apiSecret: server.apiSecret });
  apiB = createAdcampClient({ baseUrl: server.sandbox, apiKey: server.apiKey, apiSecret: server.apiSecret, scheme: "b" });
  api.use(validating(v));
  apiB.use(validating(v));
});

after(async () => {
  await server?.stop();
});

/** Fails unless an error answer has the status and code. */
function wantError(r: { error?: unknown; response: Response }, status: number, code: string): Schemas["Error"] {
  assert.equal(r.response.status, status);
  const e = r.error as Schemas["ErrorEnvelope"];
  assert.equal(e.success, false);
  assert.equal(e.error.code, code);
  assert.match(e.error.request_id, /^req_/);
  return e.error;
}

let campaignId = "";
let adGroupId = "";

test("time, unsigned", async () => {
  const { data, response } = await api.GET("/time");
  assert.equal(response.status, 200);
  assert.ok(Math.abs(data!.data.unix - Date.now() / 1000) < 60);
});

test("channel accounts", async () => {
  const { data, response } = await api.GET("/channel-accounts", { params: { query: { page: 1, page_size: 10 } } });
  assert.equal(response.status, 200);
  assert.deepEqual(
    data!.data.items.map((c) => [c.id, c.marketplace]),
    [[server.channelAccountId, "US"]],
  );
  assert.equal(response.headers.get("RateLimit-Limit"), "40000");
});

test("campaigns: create, read, list, update, money exact", async () => {
  const created = await api.POST("/campaigns", { body: { name: "Spring sale", budget_daily: "999999.99", marketplace: "us", end_date: "2099-12-31" } });
  assert.equal(created.response.status, 201);
  const cmp = created.data!.data;
  assert.equal(cmp.budget_daily, "999999.99"); // the server's text, never a float
  assert.equal(toCents(cmp.budget_daily), 99_999_999);
  assert.equal(cmp.marketplace, "US");
  assert.equal(created.response.headers.get("Location"), `/api/v1/open/campaigns/${cmp.id}`);
  assert.equal(created.response.headers.get("ETag"), '"1"');
  campaignId = cmp.id;

  const byCA = await apiB.POST("/campaigns", { body: { name: "Holiday", budget_daily: fromCents(7), channel_account_id: server.channelAccountId } });
  assert.equal(byCA.response.status, 201, "Scheme B");
  assert.equal(byCA.data!.data.budget_daily, "0.07");
  assert.equal(byCA.data!.data.channel_account_id, server.channelAccountId);

  const dry = await api.POST("/campaigns", { params: { query: { validate_only: true } }, body: { name: "Dry", budget_daily: "1", marketplace: "JP" } });
  assert.equal(dry.response.status, 200);

  const got = await api.GET("/campaigns/{campaign_id}", { params: { path: { campaign_id: campaignId } } });
  assert.equal(got.data!.data.name, "Spring sale");
  const head = await api.HEAD("/campaigns/{campaign_id}", { params: { path: { campaign_id: campaignId } } });
  assert.equal(head.response.status, 200);
  assert.equal(head.response.headers.get("ETag"), '"1"');

  const list = await api.GET("/campaigns", { params: { query: { page_size: 1, status: "active" } } });
  assert.equal(list.data!.data.total_items, 2);
  assert.equal(list.data!.data.items[0]!.id, byCA.data!.data.id, "newest first");

  const paused = await api.PUT("/campaigns/{campaign_id}", {
    params: { path: { campaign_id: byCA.data!.data.id }, header: { "If-Match": '"1"' } },
    body: { status: "paused", budget_daily: "12.5" },
  });
  assert.equal(paused.data!.data.status, "paused");
  assert.equal(paused.data!.data.budget_daily, "12.50");
  assert.equal(paused.data!.data.version, 2);

  const stale = await api.PUT("/campaigns/{campaign_id}", {
    params: { path: { campaign_id: byCA.data!.data.id }, header: { "If-Match": '"1"' } },
    body: { name: "Stale" },
  });
  wantError(stale, 412, "PRECONDITION_FAILED");

  const cleared = await api.PUT("/campaigns/{campaign_id}", { params: { path: { campaign_id: campaignId } }, body: { end_date: null } });
  assert.equal(cleared.data!.data.end_date, null);

  await api.PUT("/campaigns/{campaign_id}", { params: { path: { campaign_id: byCA.data!.data.id } }, body: { status: "ended" } });
  const ended = await api.PUT("/campaigns/{campaign_id}", { params: { path: { campaign_id: byCA.data!.data.id } }, body: { status: "active" } });
  wantError(ended, 409, "INVALID_STATE_TRANSITION");
});

test("ad groups", async () => {
  const r = await api.POST("/campaigns/{campaign_id}/ad-groups", { params: { path: { campaign_id: campaignId } }, body: { name: " Shoes ", default_bid: "0.75" } });
  assert.equal(r.response.status, 201);
  assert.equal(r.data!.data.name, "Shoes");
  assert.equal(r.data!.data.default_bid, "0.75");
  adGroupId = r.data!.data.id;
  const other = await api.POST("/campaigns/{campaign_id}/ad-groups", {
    params: { path: { campaign_id: campaignId } },
    body: { name: "Sandals", default_bid: "1.11", status: "paused" },
  });
  const list = await api.GET("/campaigns/{campaign_id}/ad-groups", { params: { path: { campaign_id: campaignId }, query: { status: "paused" } } });
  assert.deepEqual(list.data!.data.items.map((a) => a.id), [other.data!.data.id]);
  const up = await api.PUT("/ad-groups/{ad_group_id}", { params: { path: { ad_group_id: adGroupId } }, body: { default_bid: "1.00" } });
  assert.equal(up.data!.data.default_bid, "1.00");
  const got = await api.GET("/ad-groups/{ad_group_id}", { params: { path: { ad_group_id: adGroupId } } });
  assert.equal(got.data!.data.version, 2);
  const del = await api.DELETE("/ad-groups/{ad_group_id}", { params: { path: { ad_group_id: other.data!.data.id } } });
  assert.equal(del.data!.data.deleted, true);
});

test("keywords: one, a batch, all or nothing, partial failure", async () => {
  const path = { ad_group_id: adGroupId };
  const one = await api.POST("/ad-groups/{ad_group_id}/keywords", { params: { path }, body: { text: "red shoes", match_type: "exact" } });
  assert.equal(one.response.status, 201);
  const kw = one.data!.data as Schemas["Keyword"];
  assert.equal(kw.bid, null);

  const batch = await api.POST("/ad-groups/{ad_group_id}/keywords", {
    params: { path },
    body: { items: [{ text: "running shoes", match_type: "broad", bid: "1.10" }, { text: "Laufschuhe", match_type: "phrase", status: "paused" }] },
  });
  assert.equal(batch.response.status, 201);
  const items = (batch.data!.data as Schemas["KeywordItems"]).items;
  assert.deepEqual(items.map((k) => k.bid), ["1.10", null]);

  const badItems = { items: [{ text: "fine", match_type: "exact" as const }, { text: " ", match_type: "exact" as const }] };
  const atomic = await api.POST("/ad-groups/{ad_group_id}/keywords", { params: { path }, body: badItems });
  const e = wantError(atomic, 400, "VALIDATION_ERROR");
  assert.deepEqual((e.details as Schemas["FieldIssueList"]).map((i) => i.field), ["items[1].text"]);

  const partial = await apiB.POST("/ad-groups/{ad_group_id}/keywords", { params: { path, query: { partial_failure: true } }, body: badItems });
  assert.equal(partial.response.status, 207);
  const res = partial.data!.data as Schemas["KeywordBatchResult"];
  assert.equal(res.created, 1);
  assert.equal(res.failed, 1);
  assert.deepEqual(res.items.map((i) => [i.index, i.status, i.success]), [[0, 201, true], [1, 400, false]]);

  const dup = await api.POST("/ad-groups/{ad_group_id}/keywords", { params: { path }, body: { text: "RED SHOES", match_type: "exact" } });
  wantError(dup, 409, "DUPLICATE_KEYWORD");

  const list = await api.GET("/ad-groups/{ad_group_id}/keywords", { params: { path, query: { match_type: "exact", page_size: 100 } } });
  assert.equal(list.data!.data.total_items, 2);
  const up = await api.PUT("/keywords/{keyword_id}", { params: { path: { keyword_id: kw.id } }, body: { bid: "2.50", status: "paused" } });
  assert.equal(up.data!.data.bid, "2.50");
  const cleared = await api.PUT("/keywords/{keyword_id}", { params: { path: { keyword_id: kw.id } }, body: { bid: null } });
  assert.equal(cleared.data!.data.bid, null);
  const onto = await api.PUT("/keywords/{keyword_id}", { params: { path: { keyword_id: kw.id } }, body: { text: "running shoes", match_type: "broad" } });
  wantError(onto, 409, "DUPLICATE_KEYWORD");
  const got = await api.GET("/keywords/{keyword_id}", { params: { path: { keyword_id: kw.id } } });
  assert.equal(got.data!.data.version, 3);
  const del = await api.DELETE("/keywords/{keyword_id}", { params: { path: { keyword_id: kw.id } } });
  assert.equal(del.data!.data.deleted, true);
});

test("errors: 400, 401, 404, 409, 415; replays", async () => {
  const precise = await api.POST("/campaigns", {
    body: { name: "x", budget_daily: "1", marketplace: "US" },
    bodySerializer: () => '{"name":"x","budget_daily":12.345,"marketplace":"US"}', // what this client would refuse to send
  });
  const e = wantError(precise, 400, "VALIDATION_ERROR");
  assert.deepEqual(e.details, [{ field: "budget_daily", issue: "must have at most two decimal places" }]);
  wantError(await api.GET("/campaigns", { params: { query: { page_size: 101 } } }), 400, "VALIDATION_ERROR");
  wantError(await api.GET("/campaigns/{campaign_id}", { params: { path: { campaign_id: "cmp_01m7q5cqg06b8994h5jr7na6t9" } } }), 404, "NOT_FOUND");
  const text = await api.POST("/campaigns", { body: { name: "x", budget_daily: "1", marketplace: "US" }, headers: { "Content-Type": "text/plain" } });
  wantError(text, 415, "UNSUPPORTED_MEDIA_TYPE");

  const wrongKey = createAdcampClient({ baseUrl: server.sandbox, apiKey: server.apiKey, apiSecret: "sk_test_wrong" });
  const unauth = await wrongKey.GET("/campaigns");
  const details = wantError(unauth, 401, "INVALID_SIGNATURE").details as Schemas["AuthErrorDetails"];
  assert.ok(details.expected_strings_to_sign?.length, "the sandbox shows the strings to sign it expected");

  const key = `ts-${Date.now()}`;
  const body = { name: "Once", default_bid: "2.00" } as const;
  const first = await api.POST("/campaigns/{campaign_id}/ad-groups", { params: { path: { campaign_id: campaignId }, header: { "Idempotency-Key": key } }, body });
  const again = await api.POST("/campaigns/{campaign_id}/ad-groups", { params: { path: { campaign_id: campaignId }, header: { "Idempotency-Key": key } }, body });
  assert.equal(first.response.status, 201);
  assert.equal(again.response.headers.get("Idempotent-Replayed"), "true");
  assert.deepEqual(again.data, first.data);
  const reused = await api.POST("/campaigns/{campaign_id}/ad-groups", {
    params: { path: { campaign_id: campaignId }, header: { "Idempotency-Key": key } },
    body: { name: "Twice", default_bid: "2.00" },
  });
  wantError(reused, 409, "IDEMPOTENCY_KEY_REUSED");
});

test("delete a campaign with what is under it", async () => {
  const del = await api.DELETE("/campaigns/{campaign_id}", { params: { path: { campaign_id: campaignId } } });
  assert.equal(del.data!.data.deleted_ad_groups, 2);
  assert.ok((del.data!.data.deleted_keywords ?? 0) >= 3);
  wantError(await api.GET("/campaigns/{campaign_id}", { params: { path: { campaign_id: campaignId } } }), 404, "NOT_FOUND");
});

test("every answer matched openapi.yaml (ajv, strict)", () => {
  assert.ok(checked >= 30, `only ${checked} answers checked`);
  assert.deepEqual(problems, []);
});
