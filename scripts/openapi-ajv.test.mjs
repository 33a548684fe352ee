// Tests of scripts/openapi-ajv.mjs: openapi.yaml passes ajv's strict mode,
// and documents wrong in the ways the issue tracker saw make it fail.
//   node --test scripts/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createValidator, loadDocument } from "./openapi-ajv.mjs";

const docFile = fileURLToPath(new URL("../openapi.yaml", import.meta.url));
const doc = () => loadDocument(docFile);
const example = (d, name) => JSON.stringify(d.components.examples[name].value);
const keywordPath = "/ad-groups/{ad_group_id}/keywords";

test("openapi.yaml compiles in strict mode and its examples pass", () => {
  const d = doc();
  const v = createValidator(d);
  assert.deepEqual(v.response("POST", keywordPath, 201, example(d, "KeywordCreatedDefaultBid")), []);
  assert.deepEqual(v.response("GET", "/campaigns", 200, example(d, "CampaignListPage")), []);
  assert.deepEqual(v.request("POST", keywordPath, example(d, "KeywordBatchRequest")), []);
  assert.deepEqual(v.response("POST", "/campaigns", 409, example(d, "IdempotencyKeyReused")), []);
});

test("a null bid under allOf + nullable (no type) is refused", () => {
  const d = doc();
  d.components.schemas.Keyword.properties.bid = { allOf: [{ $ref: "#/components/schemas/Bid" }], nullable: true };
  assert.throws(() => createValidator(d), /nullable without type/);
});

test("a document that does not let bid be null fails a real keyword", () => {
  const d = doc();
  delete d.components.schemas.Keyword.properties.bid.nullable;
  const problems = createValidator(d).response("POST", keywordPath, 201, example(d, "KeywordCreatedDefaultBid"));
  assert.ok(problems.some((p) => p.includes("/data/bid")), problems.join("\n"));
});

test("multipleOf: 0.01 refuses exact cent amounts under floating point", () => {
  const d = doc();
  d.components.schemas.BudgetDaily.multipleOf = 0.01;
  const v = createValidator(d);
  const refused = [];
  for (let cents = 1; cents <= 10_000; cents++) {
    const m = (cents / 100).toFixed(2);
    const body = `{"name":"x","budget_daily":${m},"marketplace":"US"}`;
    if (v.request("POST", "/campaigns", body).length > 0) refused.push(m);
  }
  assert.ok(refused.includes("0.07") && refused.length > 1000, `refused ${refused.length}`);
  assert.deepEqual(
    createValidator(doc()).request("POST", "/campaigns", '{"name":"x","budget_daily":0.07,"marketplace":"US"}'),
    [],
  );
});

test("an undocumented member or status fails", () => {
  const d = doc();
  const v = createValidator(d);
  const campaign = JSON.parse(example(d, "CampaignCreated"));
  campaign.data.colour = "not in the document";
  assert.ok(v.response("POST", "/campaigns", 201, JSON.stringify(campaign)).length > 0);
  assert.ok(v.response("GET", "/campaigns", 418, "{}").length > 0);
});
