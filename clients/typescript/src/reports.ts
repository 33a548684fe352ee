// Performance reports and report jobs (docs/reports.md, docs/report-jobs.md):
// typed rows, an async iterator over every page of a report, and the helpers
// of a job: create it, wait for it, download its file as a stream or bytes,
// and read the rows of a jsonl.gz file with its money exact.

import type { Client } from "openapi-fetch";
import { parseJSON } from "./money.js";
import type { components, operations, paths } from "./openapi.js";

type Schemas = components["schemas"];

/** One row of a performance report, or one line of a jsonl.gz job's file. */
export type ReportRow = Schemas["ReportRow"];
/** The sums of every row of a report (the first page's `totals`). */
export type ReportTotals = Schemas["ReportTotals"];
/** A page of a performance report. */
export type ReportPage = Schemas["Report"];
/** A report job and its state. */
export type ReportJob = Schemas["ReportJob"];
/** What POST /report-jobs takes: the report's parameters and the file's format. */
export type ReportJobCreate = Schemas["ReportJobCreate"];
/** The parameters of GET /reports/performance. */
export type ReportQuery = NonNullable<operations["performanceReport"]["parameters"]["query"]>;

/** An error answer of the API, thrown by the helpers of this module. */
export class AdcampError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The API's error code (VALIDATION_ERROR, NOT_FOUND, CONFLICT, RATE_LIMITED...); "" if the answer had none. */
  readonly code: string;
  /** The request's id, for the server's log. */
  readonly requestId: string;
  /** The error's details (for VALIDATION_ERROR, the fields and their issues). */
  readonly details: unknown;
  /** What Retry-After asked, in milliseconds (0 if absent). */
  readonly retryAfterMs: number;

  constructor(response: Response, error: unknown) {
    const e = (error as { error?: { code?: string; message?: string; request_id?: string; details?: unknown } } | undefined)?.error;
    super(`${e?.code ?? `HTTP ${response.status}`}: ${e?.message ?? response.statusText}`);
    this.name = "AdcampError";
    this.status = response.status;
    this.code = e?.code ?? "";
    this.requestId = e?.request_id ?? response.headers.get("X-Request-Id") ?? "";
    this.details = e?.details;
    this.retryAfterMs = retryAfterMs(response.headers);
  }
}

type Api = Client<paths>;

/** The largest page of a report the API gives. */
const maxReportLimit = 1000;

/**
 * Iterates over every row of a performance report, a page of `query.limit`
 * (1000 if absent) at a time, following `next_cursor`. `onTotals` gets the
 * report's totals when the first page arrives. An error answer is thrown as
 * an AdcampError.
 *
 *   for await (const row of performanceRows(api, { level: "keyword", granularity: "day", from: "2026-11-01" })) ...
 */
export async function* performanceRows(
  api: Api,
  query: ReportQuery = {},
  opts: { onTotals?: (totals: ReportTotals) => void; signal?: AbortSignal } = {},
): AsyncGenerator<ReportRow, void, undefined> {
  const q: ReportQuery = { ...query, limit: query.limit ?? maxReportLimit };
  for (;;) {
    const { data, error, response } = await api.GET("/reports/performance", { params: { query: q }, ...signalOf(opts.signal) });
    if (!data) throw new AdcampError(response, error);
    const page = data.data;
    if (page.totals && opts.onTotals) opts.onTotals(page.totals);
    yield* page.items;
    if (!page.next_cursor) return;
    q.cursor = page.next_cursor;
  }
}

/** Creates a report job (202, pending). */
export async function createReportJob(api: Api, body: ReportJobCreate, opts: { signal?: AbortSignal } = {}): Promise<ReportJob> {
  const { data, error, response } = await api.POST("/report-jobs", { body, ...signalOf(opts.signal) });
  if (!data) throw new AdcampError(response, error);
  return data.data;
}

/** Returns a report job. */
export async function getReportJob(api: Api, id: string, opts: { signal?: AbortSignal } = {}): Promise<ReportJob> {
  const { data, error, response } = await api.GET("/report-jobs/{job_id}", { params: { path: { job_id: id } }, ...signalOf(opts.signal) });
  if (!data) throw new AdcampError(response, error);
  return data.data;
}

/** How waitReportJob polls. */
export interface WaitOptions {
  /** The first wait between two reads, in ms (1000 by default); each next one is half as long again... */
  intervalMs?: number;
  /** ...up to this (10000 by default). A Retry-After asks for longer. */
  maxIntervalMs?: number;
  /** Called with each state of the job read, the last one done or failed. */
  onProgress?: (job: ReportJob) => void;
  /** Ends the wait (and its request) with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Reads a job until it is done or failed and returns it (a failed job is
 * returned, not thrown: its `error` says why). Between reads it waits a
 * growing interval, at least what a Retry-After asks; a 429 or 503 answer
 * does not end the wait. Another error answer is thrown as an AdcampError;
 * an aborted signal rejects with its reason.
 */
export async function waitReportJob(api: Api, id: string, opts: WaitOptions = {}): Promise<ReportJob> {
  const interval = opts.intervalMs ?? 1000;
  const maxInterval = Math.max(opts.maxIntervalMs ?? 10_000, interval);
  for (let wait = interval; ; wait = Math.min(wait * 1.5, maxInterval)) {
    opts.signal?.throwIfAborted();
    const { data, error, response } = await api.GET("/report-jobs/{job_id}", { params: { path: { job_id: id } }, ...signalOf(opts.signal) });
    if (data) {
      opts.onProgress?.(data.data);
      if (data.data.status === "done" || data.data.status === "failed") return data.data;
    } else if (response.status !== 429 && response.status !== 503) {
      throw new AdcampError(response, error);
    }
    await sleep(Math.max(wait, retryAfterMs(response.headers)), opts.signal);
  }
}

/** The file of a done job, being read from the server. */
export interface ReportJobFile {
  /** The gzipped file as it arrives: read it once. */
  stream: ReadableStream<Uint8Array>;
  /** Its length in bytes (Content-Length). */
  size: number;
  /** The name the server suggests: report-rpj_....csv.gz. */
  name: string;
}

/**
 * Starts the download of a done job's file (CONFLICT until the job is done,
 * thrown as an AdcampError) and returns it as a stream, read as it arrives:
 * a file of any size takes no more memory than what is being read.
 */
export async function openReportJob(api: Api, id: string, opts: { signal?: AbortSignal } = {}): Promise<ReportJobFile> {
  const { data, error, response } = await api.GET("/report-jobs/{job_id}/download", {
    params: { path: { job_id: id } },
    parseAs: "stream",
    ...signalOf(opts.signal),
  });
  if (!response.ok || !data) throw new AdcampError(response, error);
  const name = /filename="([^"]*)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? "";
  return { stream: data as ReadableStream<Uint8Array>, size: Number(response.headers.get("Content-Length") ?? -1), name };
}

/** Downloads a done job's file whole, as bytes (gzip): for files that fit in memory. */
export async function downloadReportJob(api: Api, id: string, opts: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
  const f = await openReportJob(api, id, opts);
  const bytes = new Uint8Array(await new Response(f.stream).arrayBuffer());
  if (f.size >= 0 && bytes.length !== f.size) throw new Error(`report job ${id}: got ${bytes.length} of ${f.size} bytes`);
  return bytes;
}

/**
 * Reads the rows of a jsonl.gz job's file (a stream from openReportJob, or
 * the bytes of downloadReportJob) one at a time, with money exact as the
 * API's answers have it.
 */
export async function* jsonlRows(file: ReadableStream<Uint8Array> | Uint8Array): AsyncGenerator<ReportRow, void, undefined> {
  const source =
    file instanceof Uint8Array
      ? new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(file);
            c.close();
          },
        })
      : file;
  // The DOM's stream types take any BufferSource where a stream of
  // Uint8Array is piped: the casts only say what flows.
  const text = source
    .pipeThrough(new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>);
  let rest = "";
  for await (const chunk of text as unknown as AsyncIterable<string>) {
    rest += chunk;
    let nl: number;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (line !== "") yield parseJSON(line) as ReportRow;
    }
  }
  if (rest.trim() !== "") yield parseJSON(rest) as ReportRow;
}

/** The Retry-After of an answer in milliseconds, 0 if none. */
function retryAfterMs(h: Headers): number {
  const v = h.get("Retry-After")?.trim() ?? "";
  if (v === "") return 0;
  if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : Math.max(t - Date.now(), 0);
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
