// @adcamp/client: a small TypeScript client of the Campaign Advertising Open
// API. Its types are generated from the API's OpenAPI document by
// openapi-typescript (src/openapi.ts), its calls go through openapi-fetch,
// and two middlewares do the rest: one signs every request, the other keeps
// money exact (src/money.ts).

import createClient, { type Client, type Middleware } from "openapi-fetch";
import { quoteMoney, stringifyJSON } from "./money.js";
import type { paths } from "./openapi.js";
import { Signer, type Scheme } from "./signing.js";

export type { components, operations, paths } from "./openapi.js";
export { fromCents, toCents, usd, parseJSON, stringifyJSON, type Money } from "./money.js";
export { Signer, sign, stringToSign, type Scheme, type SignedHeaders } from "./signing.js";
export {
  AdcampError,
  createReportJob,
  downloadReportJob,
  getReportJob,
  jsonlRows,
  openReportJob,
  performanceRows,
  waitReportJob,
  type ReportJob,
  type ReportJobCreate,
  type ReportJobFile,
  type ReportPage,
  type ReportQuery,
  type ReportRow,
  type ReportTotals,
  type WaitOptions,
} from "./reports.js";

/** Where the API answers: an adcamp listener and the canonical prefix. */
export const SandboxURL = "http://127.0.0.1:8081/api/v1/open";
export const ProductionURL = "http://127.0.0.1:8080/api/v1/open";

export interface AdcampClientOptions {
  /** The API's base URL, prefix included (default: the local sandbox, SandboxURL). */
  baseUrl?: string;
  /** The access key, ak_test_... or ak_live_... */
  apiKey: string;
  /** Its secret, sk_test_... or sk_live_... */
  apiSecret: string;
  /** The signing scheme: "a" (default) or "b". */
  scheme?: Scheme;
  /** A fetch to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

export type AdcampClient = Client<paths>;

/**
 * Returns an openapi-fetch client of the API that signs every request and
 * reads and writes money exactly, as Money strings ("12.50").
 *
 *   const api = createAdcampClient({ apiKey, apiSecret });
 *   const { data, error } = await api.GET("/campaigns", { params: { query: { page_size: 50 } } });
 */
export function createAdcampClient(opts: AdcampClientOptions): AdcampClient {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl ?? SandboxURL,
    bodySerializer: stringifyJSON,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  client.use(exactMoney(), signing(new Signer(opts.apiKey, opts.apiSecret, opts.scheme ?? "a")));
  return client;
}

/** A middleware that signs each request with signer. */
export function signing(signer: Signer): Middleware {
  return {
    async onRequest({ request }) {
      const body = new Uint8Array(await request.clone().arrayBuffer());
      const path = new URL(request.url).pathname; // escaped as sent, no query
      for (const [name, value] of Object.entries(signer.headers(request.method, path, body))) {
        request.headers.set(name, value);
      }
      return request;
    },
  };
}

/**
 * A middleware that hands openapi-fetch each JSON answer with its money
 * properties as strings holding the number's exact text.
 */
export function exactMoney(): Middleware {
  return {
    async onResponse({ response }) {
      if (!response.body || !response.headers.get("Content-Type")?.startsWith("application/json")) return undefined;
      const text = await response.text();
      const headers = new Headers(response.headers);
      headers.delete("Content-Length");
      return new Response(text === "" ? null : quoteMoney(text), { status: response.status, statusText: response.statusText, headers });
    },
  };
}
