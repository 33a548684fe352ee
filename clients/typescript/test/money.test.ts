import assert from "node:assert/strict";
import { test } from "node:test";
import { fromCents, parseJSON, quoteMoney, stringifyJSON, toCents, usd } from "../src/money.js";

test("every amount from 0.01 to 100.00 round-trips exactly through cents", () => {
  for (let cents = 1; cents <= 10_000; cents++) {
    const m = fromCents(cents);
    assert.equal(toCents(m), cents, m);
    // The text a server writes for it parses back to the same text.
    assert.equal((parseJSON(`{"bid":${m}}`) as { bid: string }).bid, m);
  }
  assert.equal(toCents("999999.99"), 99_999_999);
  assert.equal(fromCents(99_999_999), "999999.99");
});

test("amounts are read as written, and refused beyond the cent", () => {
  assert.equal(toCents("12.5"), 1250);
  assert.equal(toCents("12.340"), 1234);
  assert.equal(toCents("0"), 0);
  assert.equal(usd("7"), "7.00");
  for (const bad of ["12.345", "-1", "1e2", "", " 1", "01", "1.", ".5", "NaN"]) {
    assert.throws(() => toCents(bad), RangeError, bad);
  }
  assert.throws(() => fromCents(1.5), RangeError);
});

test("money properties keep their text; nothing else changes", () => {
  const text = '{"success":true,"data":{"items":[{"bid":null,"default_bid": 0.70,"budget_daily":1000000.00,"version":3,"name":"bid: 1.5","x":{"bid":-2.10}}],"page":1}}';
  assert.deepEqual(parseJSON(text), {
    success: true,
    data: { items: [{ bid: null, default_bid: "0.70", budget_daily: "1000000.00", version: 3, name: "bid: 1.5", x: { bid: "-2.10" } }], page: 1 },
  });
  assert.equal(quoteMoney('{"text":"\\"bid\\":1","version":1}'), '{"text":"\\"bid\\":1","version":1}');
});

test("requests write Money as JSON numbers with the same digits", () => {
  assert.equal(
    stringifyJSON({ name: "Spring", budget_daily: "12.50", items: [{ bid: "0.07" }, { bid: null }], skip: undefined }),
    '{"name":"Spring","budget_daily":12.50,"items":[{"bid":0.07},{"bid":null}]}',
  );
  assert.throws(() => stringifyJSON({ bid: 1.1 }), TypeError);
  assert.throws(() => stringifyJSON({ bid: "1.105" }), RangeError);
});
