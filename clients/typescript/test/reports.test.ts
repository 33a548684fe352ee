// Reports and report jobs through the package's helpers, against a live
// adcamp serve whose sandbox simulates delivery: every page of a report
// through the async iterator, a job created, waited for, and its file read
// as a stream and as bytes, rows and money as the report's.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import {
  AdcampError,
  createAdcampClient,
  createReportJob,
  downloadReportJob,
  getReportJob,
  jsonlRows,
  openReportJob,
  performanceRows,
  toCents,
  waitReportJob,
  type AdcampClient,
  type ReportJob,
  type ReportRow,
  type ReportTotals,
} from "../src/index.js";
import { startServer, type Server } from "./repo.js";

let server: Server;
let api: AdcampClient;

before(async () => {
  server = await startServer();
  api = createAdcampClient({ baseUrl: server.sandbox, apiKey: server.apiKey, apiSecret: server.apiSecret });
  const sample = await api.POST("/sandbox/sample-data");
  assert.equal(sample.response.status, 201, "sample data");
  const sim = await api.POST("/sandbox/simulate", { params: { query: { days: 2 } } });
  assert.equal(sim.response.status, 200, "simulate");
});

after(async () => {
  await server?.stop();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const query = { level: "keyword", granularity: "day" } as const;

test("performanceRows: every page, the totals once", async () => {
  const whole = await api.GET("/reports/performance", { params: { query: { ...query, limit: 1000 } } });
  assert.equal(whole.response.status, 200);
  const all = whole.data!.data.items;
  assert.ok(all.length > 10, `only ${all.length} rows simulated`);
  let totals: ReportTotals | undefined;
  let calls = 0;
  const rows: ReportRow[] = await collect(
    performanceRows(api, { ...query, limit: 7 }, {
      onTotals: (t) => {
        totals = t;
        calls++;
      },
    }),
  );
  assert.deepEqual(rows, all, "the pages of 7 rows, in order, are the one page of all");
  assert.equal(calls, 1);
  assert.deepEqual(totals, whole.data!.data.totals);
  const cents = rows.reduce((sum, r) => sum + toCents(r.cost), 0);
  assert.equal(cents, toCents(totals!.cost), "money exact: the rows' cost sums to the totals' to the cent");

  await assert.rejects(collect(performanceRows(api, { level: "keyword", granularity: "hour", from: "2000-01-01" })), (e: unknown) => {
    assert.ok(e instanceof AdcampError);
    assert.equal(e.status, 400);
    assert.equal(e.code, "VALIDATION_ERROR");
    assert.match(e.requestId, /^req_/);
    return true;
  });
});

test("report jobs: create, wait, download as a stream and as bytes", async () => {
  const want = await collect(performanceRows(api, query));
  const job = await createReportJob(api, { ...query, format: "jsonl.gz" });
  assert.equal(job.status, "pending");
  const seen: ReportJob["status"][] = [];
  const done = await waitReportJob(api, job.id, { intervalMs: 20, maxIntervalMs: 200, onProgress: (j) => seen.push(j.status) });
  assert.equal(done.status, "done");
  assert.equal(seen.at(-1), "done");
  assert.equal(done.row_count, want.length);

  const file = await openReportJob(api, job.id);
  assert.equal(file.name, `report-${job.id}.jsonl.gz`);
  assert.equal(file.size, done.size_bytes);
  assert.deepEqual(await collect(jsonlRows(file.stream)), want, "the streamed file's rows are the report's, money as its text");

  const bytes = await downloadReportJob(api, job.id);
  assert.equal(bytes.length, done.size_bytes);
  assert.deepEqual(await collect(jsonlRows(bytes)), want);

  const csvJob = await createReportJob(api, { level: "campaign", granularity: "summary", format: "csv.gz" });
  await waitReportJob(api, csvJob.id, { intervalMs: 20 });
  const csv = gunzipSync(await downloadReportJob(api, csvJob.id)).toString("utf8");
  assert.match(csv, /^campaign_id,campaign_name,status,deleted,impressions,/);
  assert.equal((await getReportJob(api, csvJob.id)).row_count, csv.trimEnd().split("\r\n").length - 1);
});

test("report jobs: errors and an aborted wait", async () => {
  const missing = "rpj_01m7q5cqg06b8994h5jr7na6t9";
  for (const call of [() => getReportJob(api, missing), () => openReportJob(api, missing), () => waitReportJob(api, missing)]) {
    await assert.rejects(call(), (e: unknown) => e instanceof AdcampError && e.status === 404 && e.code === "NOT_FOUND");
  }
  await assert.rejects(createReportJob(api, { level: "campaign", format: "xlsx" as "csv.gz" }), (e: unknown) => e instanceof AdcampError && e.code === "VALIDATION_ERROR");

  // The sandbox answers this client's every request 429 with Retry-After:
  // the wait goes on through them, until it is aborted.
  const limited = createAdcampClient({ baseUrl: server.sandbox, apiKey: server.apiKey, apiSecret: server.apiSecret });
  let answers429 = 0;
  limited.use({
    onRequest({ request }) {
      request.headers.set("X-Sandbox-Simulate", "rate_limited");
      return request;
    },
    onResponse({ response }) {
      if (response.status === 429 && response.headers.get("Retry-After")) answers429++;
      return undefined;
    },
  });
  const job = await createReportJob(api, { level: "campaign", format: "csv.gz" });
  const stop = new AbortController();
  let progress = 0;
  const waiting = waitReportJob(limited, job.id, { intervalMs: 10, onProgress: () => progress++, signal: stop.signal });
  while (answers429 === 0) await new Promise((r) => setTimeout(r, 10));
  stop.abort(new Error("enough"));
  await assert.rejects(waiting, /enough/, "an abort ends the wait, in its Retry-After's sleep");
  assert.equal(progress, 0);
  await assert.rejects(waitReportJob(api, job.id, { signal: AbortSignal.abort(new Error("already")) }), /already/);
});
